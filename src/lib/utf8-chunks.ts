/**
 * Text written as UTF-8 into fixed-size Buffers. Buffers live outside the V8 heap, so a large
 * response body built this way grows neither the heap nor a string of its whole size; the
 * chunks are sent one after another and freed as they go.
 */

const CHUNK_BYTES = 64 * 1024;
const encoder = new TextEncoder();

export class Utf8Chunks {
  private readonly chunkBytes: number;
  private readonly done: Buffer[] = [];
  private current: Buffer;
  private used = 0;
  private doneBytes = 0;
  private head: Buffer | null = null;

  constructor(chunkBytes = CHUNK_BYTES) {
    // A code point takes up to 4 bytes and is never split.
    if (!(chunkBytes >= 4)) throw new RangeError('Utf8Chunks needs chunks of at least 4 bytes');
    this.chunkBytes = chunkBytes;
    this.current = Buffer.allocUnsafe(chunkBytes);
  }

  /**
   * Appends `text`, split across chunks wherever it crosses one (never inside a code point).
   * Lone surrogates become U+FFFD, as in any UTF-8 encoding; JSON text has none (JSON.stringify
   * escapes them).
   */
  write(text: string): void {
    let rest = text;
    for (;;) {
      const { read, written } = encoder.encodeInto(rest, this.current.subarray(this.used));
      this.used += written;
      if (read === rest.length) return;
      rest = rest.slice(read);
      this.close();
      this.current = Buffer.allocUnsafe(this.chunkBytes);
    }
  }

  /** Puts `text` before everything written so far and after; once, for a header known last. */
  prepend(text: string): void {
    if (this.head) throw new Error('Utf8Chunks.prepend called twice');
    this.head = Buffer.from(text, 'utf8');
  }

  /** Bytes written so far, the prepended text included. */
  get byteLength(): number {
    return (this.head?.length ?? 0) + this.doneBytes + this.used;
  }

  /** The chunks in order (empty ones left out); the writer must not be used afterwards. */
  finish(): Buffer[] {
    this.close();
    this.current = Buffer.alloc(0);
    const chunks = this.head ? [this.head, ...this.done] : [...this.done];
    this.done.length = 0;
    return chunks;
  }

  /** Moves the written part of the current chunk to the finished ones. */
  private close(): void {
    if (this.used > 0) {
      this.done.push(this.current.subarray(0, this.used));
      this.doneBytes += this.used;
    }
    this.used = 0;
  }
}
