/**
 * A command's output within a bound: its first and last `half` bytes kept, what lies between them dropped and
 * counted, since the start says what ran and the end how it ended.
 */
export class CappedOutput {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail = Buffer.alloc(0);
  private total = 0;

  constructor(private readonly half: number) {}

  add(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.half) {
      const taken = rest.subarray(0, this.half - this.headBytes);
      this.head.push(taken);
      this.headBytes += taken.length;
      rest = rest.subarray(taken.length);
    }
    if (rest.length > 0) this.tail = Buffer.concat([this.tail, rest]).subarray(-this.half);
  }

  get truncated(): boolean {
    return this.total > this.headBytes + this.tail.length;
  }

  text(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    if (!this.truncated) return head + this.tail.toString("utf8");
    const cut = this.total - this.headBytes - this.tail.length;
    return `${head}\n[... ${cut} bytes of output cut ...]\n${this.tail.toString("utf8")}`;
  }
}
