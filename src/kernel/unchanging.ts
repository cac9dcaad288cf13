// Answers their owner will never change (a cached render's): the HTTP layer serializes each one once
// and keeps its JSON while the object lives (src/http/serializer.ts). A cached render's JSON is
// mostly its HTML, and escaping it again on every answer was 2–7 % of a warm render's CPU
// (BENCHMARKS.md). Here, below both, so that a service can mark what a route answers.
const unchanging = new WeakSet<object>();

/** Marks an answer that no one changes from now on (neither it nor what it holds), so that its JSON can be kept. */
export function unchangingAnswer<T extends object>(answer: T): T {
  unchanging.add(answer);
  return answer;
}

/** Whether `data` was marked by unchangingAnswer. */
export function isUnchanging(data: unknown): data is object {
  return typeof data === 'object' && data !== null && unchanging.has(data);
}
