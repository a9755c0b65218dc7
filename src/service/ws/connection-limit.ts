/**
 * Caps concurrent WebSocket connections per credential (the spec's 5 per API key). `acquire` returns a release
 * function, or undefined when the credential is at its cap; releasing twice is harmless.
 */
export class ConnectionLimit {
  private readonly open = new Map<string, number>();

  constructor(readonly max: number) {}

  acquire(key: string): (() => void) | undefined {
    const current = this.open.get(key) ?? 0;
    if (current >= this.max) return undefined;
    this.open.set(key, current + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left <= 0) this.open.delete(key);
      else this.open.set(key, left);
    };
  }

  count(key: string): number {
    return this.open.get(key) ?? 0;
  }
}
