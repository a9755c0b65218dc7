import type { Job, ScheduledJob } from './types.js';

export interface QueuedJob extends ScheduledJob {
  readonly run: Job;
  /** Insertion order: jobs due at the same millisecond run in the order they were scheduled. */
  readonly seq: number;
  /** Runs where a test-clock jump stops rather than at its own time (see ScheduleOptions.coalesce). */
  readonly coalesce: boolean;
}

function before(a: QueuedJob, b: QueuedJob): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/** A binary min-heap of jobs ordered by (due time, scheduling order), with cancellation by id. */
export class JobQueue {
  private readonly heap: QueuedJob[] = [];
  private readonly live = new Map<number, QueuedJob>();
  private nextId = 1;

  add(at: number, run: Job, name: string, coalesce = false): QueuedJob {
    const id = this.nextId++;
    const job: QueuedJob = { id, at, name, run, seq: id, coalesce };
    this.live.set(id, job);
    this.heap.push(job);
    this.siftUp(this.heap.length - 1);
    return job;
  }

  /** Cancelled jobs stay in the heap and are skipped when they surface (lazy deletion). */
  cancel(id: number): boolean {
    return this.live.delete(id);
  }

  get size(): number {
    return this.live.size;
  }

  peek(): QueuedJob | undefined {
    this.dropCancelled();
    return this.heap[0];
  }

  /** Removes and returns the earliest job if it is due at or before `time`. */
  takeDue(time: number): QueuedJob | undefined {
    const head = this.peek();
    if (head === undefined || head.at > time) return undefined;
    this.pop();
    this.live.delete(head.id);
    return head;
  }

  /** The earliest live job that is not coalesced (a scan: test-clock advances only). */
  earliestFixed(): QueuedJob | undefined {
    let earliest: QueuedJob | undefined;
    for (const job of this.live.values()) {
      if (!job.coalesce && (earliest === undefined || before(job, earliest))) earliest = job;
    }
    return earliest;
  }

  list(): ScheduledJob[] {
    return [...this.live.values()].sort((a, b) => (before(a, b) ? -1 : 1)).map(({ id, at, name }) => ({ id, at, name }));
  }

  private dropCancelled(): void {
    while (this.heap.length > 0 && !this.live.has(this.heap[0]!.id)) this.pop();
  }

  private pop(): void {
    const last = this.heap.pop();
    if (last === undefined || this.heap.length === 0) return;
    this.heap[0] = last;
    this.siftDown(0);
  }

  private siftUp(index: number): void {
    const heap = this.heap;
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private siftDown(index: number): void {
    const heap = this.heap;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === i) return;
      [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
      i = smallest;
    }
  }
}
