# Web search flow sizes: the CDF of the query/background traffic measured
# in a production web-search cluster, Alizadeh et al., "Data Center TCP
# (DCTCP)", SIGCOMM 2010, Figure 4, as tabulated (the same points) by the
# HPCC ns-3 simulator, alibaba-edu/High-Precision-Congestion-Control,
# traffic_gen/WebSearch_distribution.txt, and used in Li et al., "HPCC:
# High Precision Congestion Control", SIGCOMM 2019.
# Mean of the piecewise linear CDF (how ccsim draws): 1.71 MB.
#
# size_bytes  cumulative_percent
0		0
10000		15
20000		20
30000		30
50000		40
80000		53
200000		60
1000000		70
2000000		80
5000000		90
10000000	97
30000000	100
