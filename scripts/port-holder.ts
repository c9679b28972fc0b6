import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';

/** A running process: its pid and its command line as `ps` would show it. */
export interface ProcessInfo {
  pid: number;
  command: string;
}

/** The command line of `pid`, or undefined when no such process runs (or it is not ours to read). */
export function processInfo(pid: number): ProcessInfo | undefined {
  try {
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return { pid, command };
  } catch {
    return undefined;
  }
}

/** Whether a server could listen on `port` now. */
export const canListen = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    // No host: the dual-stack wildcard, which collides with a listener on any local address.
    server.listen({ port, exclusive: true }, () => server.close(() => resolve(true)));
  });

/** Socket inodes listening on `port`, from the kernel's TCP tables (Linux). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const localPort = Number.parseInt(fields[1]?.split(':')[1] ?? '', 16);
      // State 0A is LISTEN; the inode is the tenth field.
      if (localPort === port && fields[3] === '0A' && fields[9]) inodes.add(fields[9]);
    }
  }
  return inodes;
}

/** The process holding a listening socket on `port`, when /proc lets us see it. */
export function portHolder(port: number): ProcessInfo | undefined {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return undefined;
  const sockets = new Set([...inodes].map((inode) => `socket:[${inode}]`));
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (sockets.has(readlinkSync(`/proc/${entry}/fd/${fd}`))) return processInfo(Number(entry));
      } catch {
        // closed while we looked
      }
    }
  }
  return undefined;
}

/**
 * Fails with a message naming the holder when any port is taken, so that a service left over from
 * an earlier run is never mistaken for the one about to start.
 */
export async function assertPortsFree(ports: { port: number; use: string; setting: string }[]): Promise<void> {
  for (const { port, use, setting } of ports) {
    if (await canListen(port)) continue;
    const holder = portHolder(port);
    const who = holder ? `process ${holder.pid} (${holder.command})` : 'another process';
    throw new Error(
      `Port ${port}, for ${use}, is already in use by ${who}, perhaps left over from an earlier run. ` +
        `Stop it${holder ? ` (kill ${holder.pid})` : ''} or choose another port with ${setting}.`,
    );
  }
}
