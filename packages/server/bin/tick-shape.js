// Preloaded (`node --import`) by every server process, first: keeps one `process.nextTick` tick
// object alive for the life of the process. At each computed key of the literal that builds a
// tick object, V8 records the shape it saw first, and the first time it sees another it takes
// its slowest path there for good. A garbage collection during a busy start-up, or after a quiet
// spell, could collect the only shapes in use; the next tick then built new ones, and from then
// on every nextTick (several per HTTP request) cost several times as much (BENCHMARKS.md, How the
// delivery path works). Held from the start, the first shapes stay the only ones.
import { executionAsyncResource } from 'node:async_hooks';

/** The tick object held: filled on the first turn of the event loop. */
export const heldTickObjects = [];

process.nextTick(() => heldTickObjects.push(executionAsyncResource()));
