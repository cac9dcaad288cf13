// The embedded database belongs to one process: PGlite has no lock of its own, and two processes
// writing one data directory would corrupt it. A lock file with the owner's pid says who has it;
// a lock left by a process that is gone is taken over.
import { openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirInUseError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock of `dir`, or throws DataDirInUseError naming the process that holds it. */
export function lockDataDir(dir: string): () => void {
  const file = join(dir, 'sigsvc.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new DataDirInUseError(
          `the embedded database in ${dir} is in use by process ${owner} (a running service?): stop it first, or use the API`,
        );
      }
      rmSync(file, { force: true });
    }
  }
  throw new DataDirInUseError(`could not lock ${dir}`);
}
