import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createFailureStreak } from './failure-streak.ts';

test('a streak of failures is reported when it starts, reminded of, and ended once', () => {
  let clock = 0;
  const lines: string[] = [];
  const streak = createFailureStreak(
    {
      failing: (error, tries) => lines.push(`failing ${(error as Error).message} after ${tries}`),
      recovered: (tries) => lines.push(`recovered after ${tries}`),
    },
    { remindEveryMs: 60_000, now: () => clock },
  );
  streak.succeeded();
  for (let i = 0; i < 130; i++) {
    streak.failed(new Error(`try ${i + 1}`));
    clock += 1_000;
  }
  streak.succeeded();
  streak.succeeded();
  streak.failed(new Error('again'));
  assert.deepEqual(lines, [
    'failing try 1 after 1',
    'failing try 61 after 61',
    'failing try 121 after 121',
    'recovered after 130',
    'failing again after 1',
  ]);
});
