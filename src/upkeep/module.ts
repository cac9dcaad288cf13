// The embedded database's upkeep (upkeep.ts): a timer of the service's, on the embedded store only.
// A PostgreSQL server vacuums its tables itself, and a one-shot command starts no timers.
import type { Core } from '../core/core.ts';
import type { Stop } from '../core/module.ts';
import { createUpkeep, type Upkeep } from './upkeep.ts';

export function upkeepModule(core: Pick<Core, 'database' | 'logger' | 'config'>) {
  const intervalMs = core.config.embeddedVacuumIntervalMs;
  const upkeep: Upkeep | undefined =
    core.database.kind === 'embedded' && intervalMs > 0 ? createUpkeep({ db: core.database.db, logger: core.logger, intervalMs }) : undefined;
  const timers: (() => Stop)[] = upkeep ? [() => upkeep.start()] : [];
  return { name: 'upkeep', service: { upkeep }, timers };
}
