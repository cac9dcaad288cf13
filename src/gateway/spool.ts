// A message held between receiving and relaying: in memory up to a threshold, then in a
// temporary file, so a 50 MB message costs little memory. Relaying only once the whole message
// is here is what makes "nothing partial is relayed" hold when a client drops mid-DATA.
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';

const MEMORY_BYTES = 1024 * 1024;

export class Spool {
  /** Bytes past this are counted, not kept (the listener refuses the message): a client cannot fill the disk. */
  private readonly limit: number;
  private chunks: Buffer[] = [];
  private file: { dir: string; name: string; out: WriteStream } | undefined;
  size = 0;

  constructor(limit = Number.POSITIVE_INFINITY) {
    this.limit = limit;
  }

  /** Copies a stream in; resolves when it ended, rejects when it failed (the client went away). */
  async fill(source: Readable): Promise<void> {
    await pipeline(
      source,
      new Writable({
        write: (chunk: Buffer, _enc, done) => {
          this.write(chunk).then(() => done(), done);
        },
      }),
    );
    await this.end();
  }

  /** After the last write: the file (if any) is complete. */
  async end(): Promise<void> {
    if (this.file) {
      this.file.out.end();
      await finished(this.file.out);
    }
  }

  /** Appends a chunk (the caller awaits each one, then calls `end`). */
  async write(chunk: Buffer): Promise<void> {
    this.size += chunk.length;
    if (this.size > this.limit) return;
    if (!this.file && this.size <= MEMORY_BYTES) {
      this.chunks.push(chunk);
      return;
    }
    if (!this.file) {
      const dir = await mkdtemp(path.join(tmpdir(), 'sigsvc-gw-'));
      const name = path.join(dir, 'message.eml');
      const out = createWriteStream(name);
      this.file = { dir, name, out };
      for (const c of this.chunks) out.write(c);
      this.chunks = [];
    }
    if (!this.file.out.write(chunk)) await new Promise<void>((resolve) => this.file!.out.once('drain', () => resolve()));
  }

  /** The message's bytes, from the start. */
  open(): Readable {
    return this.file ? createReadStream(this.file.name, { highWaterMark: 64 * 1024 }) : Readable.from(this.chunks, { objectMode: false });
  }

  async dispose(): Promise<void> {
    this.chunks = [];
    if (this.file) {
      this.file.out.destroy();
      await rm(this.file.dir, { recursive: true, force: true });
      this.file = undefined;
    }
  }
}
