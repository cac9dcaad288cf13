// The embedded database belongs to one process: PGlite has no lock of its own, and two processes
// writing one data directory would corrupt it. A lock file says who has it: the owner's pid and,
// on Linux, its start time; a lock whose owner is gone is taken over.
//
// "Gone" includes a zombie: a process killed (say by `kill -9`) whose parent died too stays in the
// process table until something reaps it, which under a minimal init, or in a container without
// one, may be never. It still answers `kill(pid, 0)`, so that test alone kept a restart refused
// forever. A lock the kernel drops with its process (flock) would be the sturdier shape, but Node
// offers none without a native addon; so the owner is also looked up in /proc: a zombie ('Z') or
// dead ('X') state, or a start time other than the lock's (its pid was reused by another process
// since), means the owner is gone. Without /proc (not Linux), `kill(pid, 0)` is all there is.
import { existsSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirInUseError extends Error {}

const HAS_PROC = existsSync('/proc/self/stat');

/** State and start time (clock ticks after boot) from /proc/<pid>/stat, or undefined when it has no entry. */
export function processStat(pid: number): { state: string; startTime: string } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid … starttime …": comm may hold spaces and parentheses, so the fields are
  // counted from its last ')'; starttime is the 22nd field, the 20th after comm.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', startTime: fields[19] ?? '' };
}

function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The owner named by a lock file still runs: not exited, not a zombie, not replaced under its pid. */
export function ownerAlive(owner: { pid: number; startTime: string | undefined }): boolean {
  if (!signalable(owner.pid)) return false;
  if (!HAS_PROC) return true;
  const stat = processStat(owner.pid);
  if (!stat || stat.state === 'Z' || stat.state === 'X') return false;
  return owner.startTime === undefined || owner.startTime === stat.startTime;
}

/** Reads "<pid> <start time>" (or a bare pid, as written before start times were). */
function readOwner(file: string): { pid: number; startTime: string | undefined } | undefined {
  const [pid, startTime] = readFileSync(file, 'utf8').trim().split(/\s+/);
  const n = Number(pid);
  return Number.isInteger(n) && n > 0 ? { pid: n, startTime: startTime || undefined } : undefined;
}

/** Takes the lock of `dir`, or throws DataDirInUseError naming the process that holds it. */
export function lockDataDir(dir: string): () => void {
  const file = join(dir, 'sigsvc.lock');
  const own = HAS_PROC ? processStat(process.pid)?.startTime : undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, own ? `${process.pid} ${own}` : String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = readOwner(file);
      if (owner && owner.pid !== process.pid && ownerAlive(owner)) {
        throw new DataDirInUseError(`the embedded database in ${dir} is in use by process ${owner.pid} (a running service?): stop it first, or use the API`);
      }
      rmSync(file, { force: true });
    }
  }
  throw new DataDirInUseError(`could not lock ${dir}`);
}
