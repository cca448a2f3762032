#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# ctl.py - the control channel between the two guests of tests/multi: a
# remote shell over TCP on the guests' own network (the host root they
# share is read-only, so they cannot meet in a file).
#
#   ctl.py serve ADDR PORT INIT QUITFILE
#       guest A: accept connections on ADDR:PORT; each sends one line, a
#       bash command run with INIT sourced first (the test helpers); its
#       output (stdout and stderr) comes back as it is written, then one
#       last line "__rc=N" with its exit status.  A client that goes away
#       (killed, or its end closed) takes its command with it, and all
#       the command started.  The line "__quit" ends the server, as does
#       QUITFILE appearing (the host's way to end guest A when guest B
#       never came).
#   ctl.py run ADDR PORT CMD
#       guest B: run CMD in guest A, copy its output to stdout, exit with
#       its status (255 when the connection broke before the status).
#       The first connect is retried for 30 s.

import os
import signal
import socket
import subprocess
import sys
import threading
import time


def descendants(pid):
    """PID and every process below it (timeout(1) makes its own group)."""
    children = {}
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % d) as f:
                ppid = int(f.read().rsplit(')', 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def watch_peer(conn, proc):
    """Kill PROC and what it started once the client closes its end."""
    try:
        while conn.recv(4096):
            pass
    except OSError:
        pass
    if proc.poll() is None:
        for p in descendants(proc.pid):
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass


def serve_one(conn, init):
    """Run the one command of CONN, streaming its output back."""
    f = conn.makefile('rb')
    line = f.readline().decode(errors='replace').rstrip('\n')
    if line == '__quit':
        conn.sendall(b'\n__rc=0\n')
        return True
    script = '. %s\n%s\n' % (init, line)
    proc = subprocess.Popen(['bash', '-c', script], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    threading.Thread(target=watch_peer, args=(conn, proc), daemon=True).start()
    try:
        for chunk in iter(lambda: proc.stdout.read1(4096), b''):
            conn.sendall(chunk)
    except OSError:
        pass
    rc = proc.wait()
    try:
        conn.sendall(b'\n__rc=%d\n' % rc)
    except OSError:
        pass
    return False


def serve(addr, port, init, quitfile):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, int(port)))
    ls.listen(16)
    ls.settimeout(1.0)
    quit_ev = threading.Event()

    def handle(conn):
        with conn:
            if serve_one(conn, init):
                quit_ev.set()

    while not quit_ev.is_set() and not os.path.exists(quitfile):
        try:
            conn, _ = ls.accept()
        except socket.timeout:
            continue
        conn.settimeout(None)
        threading.Thread(target=handle, args=(conn,), daemon=True).start()
    return 0


def run(addr, port, cmd):
    if '\n' in cmd:
        print('ctl.py: a command is one line', file=sys.stderr)
        return 2
    deadline = time.monotonic() + 30
    while True:
        try:
            s = socket.create_connection((addr, int(port)), timeout=5)
            break
        except OSError:
            if time.monotonic() > deadline:
                print('ctl.py: cannot reach %s:%s' % (addr, port),
                      file=sys.stderr)
                return 255
            time.sleep(0.5)
    s.settimeout(None)
    s.sendall(cmd.encode() + b'\n')
    tail = b''
    out = sys.stdout.buffer
    while True:
        chunk = s.recv(65536)
        if not chunk:
            out.write(tail)
            return 255
        buf = tail + chunk
        # hold back what could be the start of the status line
        cut = buf.rfind(b'\n__rc=')
        if cut >= 0 and buf.endswith(b'\n'):
            out.write(buf[:cut + 1])
            out.flush()
            return int(buf[cut + 6:].strip() or b'255')
        keep = max(len(buf) - 16, 0)
        out.write(buf[:keep])
        out.flush()
        tail = buf[keep:]


def main():
    if len(sys.argv) == 6 and sys.argv[1] == 'serve':
        return serve(*sys.argv[2:6])
    if len(sys.argv) == 5 and sys.argv[1] == 'run':
        return run(*sys.argv[2:5])
    print('usage: ctl.py serve ADDR PORT INIT QUITFILE | run ADDR PORT CMD',
          file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
