import assert from 'node:assert/strict';
import { openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLogger } from './logger.ts';

test('log lines that outrun the output are dropped and reported, not held without end', async () => {
  const path = join(tmpdir(), `folio-log-${process.pid}.ndjson`);
  const fd = openSync(path, 'w');
  try {
    const logger = createLogger('info', { fd, bufferBytes: 64 * 1024, reportEveryMs: 50 });
    // All in one turn: the output cannot be written to before the loop ends, as under a flood.
    const line = 'x'.repeat(1_000);
    for (let i = 0; i < 5_000; i++) logger.info({ i, line }, 'request');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text));
    const written = lines.filter((entry) => entry.msg === 'request').length;
    assert.ok(written > 0 && written < 100, `${written} of 5000 lines kept: at most the 64 KB bound`);
    const report = lines.find((entry) => entry.dropped !== undefined);
    assert.equal(report?.level, 40);
    assert.equal(report.dropped, 5_000 - written);
  } finally {
    // The descriptor stays open: the logger may still write to it, and it goes with the process.
    rmSync(path, { force: true });
  }
});
