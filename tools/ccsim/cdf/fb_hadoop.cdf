# Facebook Hadoop cluster flow sizes: Roy et al., "Inside the Social
# Network's (Datacenter) Network", SIGCOMM 2015, Figure 6 (Hadoop), as
# tabulated (the same points) by the HPCC ns-3 simulator,
# alibaba-edu/High-Precision-Congestion-Control,
# traffic_gen/FbHdp_distribution.txt, and used in Li et al., "HPCC: High
# Precision Congestion Control", SIGCOMM 2019.
# Mean of the piecewise linear CDF (how ccsim draws): 120 KB; half the flows are
# below 1 KB.
#
# size_bytes  cumulative_percent
0		0
100		1
200		2
300		5
350		15
400		20
500		30
600		40
700		50
1000		60
2000		67
7000		70
30000		72
50000		82
80000		87
120000		90
300000		95
1000000		97.5
2000000		99
10000000	100
