import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { AppError } from '../errors.ts';
import type { ImportItem } from '../services/article-transfer.ts';
import { checkLines, itemsOf } from './import-lines.ts';
import { createInputValidator } from './validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-import-lines-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const validator = createInputValidator('http://folio.test');

function write(name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

function article(id: string, text = 'Hello.'): string {
  return JSON.stringify({
    id,
    slug: id,
    title: id.toUpperCase(),
    blocks: [{ type: 'paragraph', content: [{ text }] }],
  });
}

async function collect(items: AsyncIterable<ImportItem>): Promise<ImportItem[]> {
  const all: ImportItem[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe('import lines, read a chunk at a time', () => {
  test('lines across chunk boundaries come whole, in order, with their numbers', async () => {
    // Lines of about 300 KB: several fall across the 1 MiB reads.
    const ids = Array.from({ length: 12 }, (_, i) => `a${i}`);
    const text = (i: number) => `${'word '.repeat(60_000)}${i}`;
    const lines = ids.map((id, i) => article(id, text(i)));
    // A BOM, CRLF endings, a blank line and no newline at the end, as editors save files.
    const file = write(
      'big.ndjson',
      `\uFEFF${lines.slice(0, 6).join('\r\n')}\r\n\r\n${lines.slice(6).join('\n')}`,
    );
    const progress: Array<[number, number]> = [];
    const checked = await checkLines(file, validator, (done, total) => progress.push([done, total]));
    assert.deepEqual(checked, { invalid: [], importable: 12, filled: 12 });
    assert.deepEqual(progress.at(-1), [13, 13], 'every line counted, the blank one too');
    const items = await collect(itemsOf(file, validator, checked));
    assert.deepEqual(
      items.map((item) => [item.line, item.id]),
      ids.map((id, i) => [i < 6 ? i + 1 : i + 2, id]),
    );
    items.forEach((item, i) => {
      const block = item.input.blocks[0] as { content: Array<{ text: string }> };
      assert.equal(block.content[0]!.text, text(i));
    });
  });

  test('a line far over the limit is reported without being held, and the others still come', async () => {
    const huge = article('huge', 'x'.repeat(5 * 1024 * 1024));
    const file = write('huge.ndjson', [article('a'), huge, article('b')].join('\n'));
    const checked = await checkLines(file, validator, () => {});
    assert.deepEqual(
      checked.invalid.map((entry) => [entry.line, entry.message]),
      [[2, 'is over the 1 MiB an article may be']],
    );
    assert.equal(checked.importable, 2);
    const items = await collect(itemsOf(file, validator, checked));
    assert.deepEqual(
      items.map((item) => item.id),
      ['a', 'b'],
    );
  });

  test('a file that changed between the check and the write stops the import', async () => {
    const file = write('changing.ndjson', [article('a'), article('b')].join('\n'));
    const checked = await checkLines(file, validator, () => {});
    fs.writeFileSync(file, [article('a'), '{"id": "b"'].join('\n'));
    await assert.rejects(collect(itemsOf(file, validator, checked)), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'conflict');
      assert.match(error.message, /changed during the import: line 2 is not valid JSON/);
      return true;
    });
  });
});
