import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
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

test('a wall clock stepped back does not silence the reminders of a streak', async () => {
  mock.timers.enable({ apis: ['Date'], now: Date.now() });
  try {
    const lines: string[] = [];
    const streak = createFailureStreak(
      { failing: (_error, tries) => lines.push(`failing after ${tries}`) },
      { remindEveryMs: 20 },
    );
    streak.failed(new Error('down'));
    mock.timers.setTime(Date.now() - 3_600_000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    streak.failed(new Error('still down'));
    assert.deepEqual(lines, ['failing after 1', 'failing after 2'], 'reminded as often, not an hour later');
  } finally {
    mock.timers.reset();
  }
});
