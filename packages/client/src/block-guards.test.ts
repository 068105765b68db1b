import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { blocksJsonSchema } from '@folio/schema';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { checkBlock } from './block-guards.ts';

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validateBlocks = ajv.compile(blocksJsonSchema('https://folio.example.com'));
const isSchemaValid = (block: unknown) => validateBlocks([block]);

/** Every block used as input by the golden fixtures: valid, invalid and hostile ones. */
function fixtureBlocks(): unknown[] {
  const dir = new URL('./fixtures/render/', import.meta.url);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .flatMap((file) => (JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as { input: unknown[] }).input);
}

describe('checkBlock against the served block schema', () => {
  const blocks = fixtureBlocks();

  it('sees both valid and invalid blocks in the fixtures', () => {
    assert.ok(blocks.filter(isSchemaValid).length >= 20);
    assert.ok(blocks.filter((b) => !isSchemaValid(b)).length >= 20);
  });

  it('accepts every block the schema accepts, so the renderer never drops valid content', () => {
    for (const block of blocks.filter(isSchemaValid)) {
      assert.ok('block' in checkBlock(block), `refused a schema-valid block: ${JSON.stringify(block)}`);
    }
  });

  it('refuses only blocks the schema refuses too', () => {
    for (const block of blocks) {
      if ('problem' in checkBlock(block)) assert.equal(isSchemaValid(block), false, JSON.stringify(block));
    }
  });
});
