import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { articleInputSchema, blocksJsonSchema } from '@folio/schema';
import { Type } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { INVALID_BLOCKS } from '../test/invalid-blocks.ts';
import {
  addFormats,
  createValidatorCompiler,
  describeValidationErrors,
  MAX_DETAILS,
  summarizeDetails,
} from './validation.ts';

type Check = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

const blocksSchema = blocksJsonSchema('http://folio.test');
const bodySchema = articleInputSchema(Type.Unsafe({ $ref: blocksSchema.$id }));

/** The ingest route's body validator, and how many Ajv errors each refusal examined. */
function articleValidator() {
  const examined: number[] = [];
  const compile = createValidatorCompiler([blocksSchema], { onErrorsExamined: (n) => examined.push(n) });
  const validate = compile({ schema: bodySchema, httpPart: 'body' }) as Check;
  return { validate, examined };
}

/** What every error of a body describes to: one plain `allErrors` pass, as before the cap. */
function everyDetail(body: unknown) {
  const ajv = addFormats(new Ajv2020({ allErrors: true, verbose: true, strict: false, useDefaults: true }));
  ajv.addSchema(blocksSchema);
  const validate = ajv.compile(bodySchema);
  return validate(structuredClone(body)) ? [] : describeValidationErrors(validate.errors ?? []);
}

const article = (blocks: unknown[], fields: Record<string, unknown> = {}) => ({
  slug: 'a',
  title: 'A',
  blocks,
  ...fields,
});

/** As many items as fit in about 1 MiB of JSON. */
function mebibyteOf(make: (i: number) => unknown): unknown[] {
  const items: unknown[] = [];
  for (let i = 0, size = 0; size < 1024 * 1024 - 1024; i++) {
    const item = make(i);
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return items;
}

describe('body validation', () => {
  test('a valid body passes without any error being examined', () => {
    const { validate, examined } = articleValidator();
    const blocks = Array.from({ length: 10_000 }, (_, i) => ({
      type: 'paragraph',
      content: [{ text: `${i}` }],
    }));
    assert.equal(validate(article(blocks)), true);
    assert.deepEqual(examined, []);
  });

  test('an ordinary invalid body gets exactly the details of every error, in order', () => {
    const bodies = [
      article([{ type: 'heading', level: 7, text: 'x' }]),
      { slug: 'a/b', title: '', blocks: [], extra: 1 },
      article([
        ...INVALID_BLOCKS.map((make, i) => make(i)),
        { type: 'faq', items: [{ question: 1, answer: [{}] }] },
      ]),
      article([{ type: 'video', provider: 'vimeo', videoId: '!' }], {
        seo: { canonicalPath: '/x' },
        related: ['a b'],
      }),
      { title: 'X', blocks: [{ type: 'callout', variant: 'loud', content: [] }, { type: 'nope' }] },
      article([
        { type: 'paragraph', content: Array.from({ length: 60 }, () => ({ text: 'x', href: 'ftp://x' })) },
      ]),
      [],
      null,
    ];
    for (const body of bodies) {
      const { validate } = articleValidator();
      assert.equal(validate(structuredClone(body)), false, JSON.stringify(body));
      assert.deepEqual(
        describeValidationErrors(validate.errors ?? []),
        everyDetail(body),
        JSON.stringify(body),
      );
    }
  });

  test('an invalid block after thousands of valid ones is still found', () => {
    const { validate } = articleValidator();
    const blocks = [
      ...Array.from({ length: 10_000 }, (_, i) => ({ type: 'paragraph', content: [{ text: `${i}` }] })),
      { type: 'heading', level: 9, text: 'x' },
    ];
    assert.equal(validate(article(blocks, { extra: true })), false);
    assert.deepEqual(describeValidationErrors(validate.errors ?? []), [
      { path: '/extra', message: 'is not a known field' },
      { path: '/blocks/10000/level', message: 'must be one of 2, 3, 4' },
    ]);
  });

  const hostile: Record<string, unknown> = {
    '10,000 invalid blocks': article(
      Array.from({ length: 10_000 }, (_, i) => INVALID_BLOCKS[i % INVALID_BLOCKS.length]!(i)),
    ),
    '1 MiB of invalid blocks of every kind': article(
      mebibyteOf((i) => INVALID_BLOCKS[i % INVALID_BLOCKS.length]!(i)),
    ),
    'one FAQ block of 1 MiB of bad items': article([
      { type: 'faq', items: mebibyteOf(() => ({ question: 1, answer: [] })) },
    ]),
    'one paragraph of 1 MiB of bad runs': article([
      { type: 'paragraph', content: mebibyteOf((i) => ({ text: i, b: 1 })) },
    ]),
    'one table row of 1 MiB of numbers': article([
      { type: 'table', headers: [], rows: [mebibyteOf((i) => i)] },
    ]),
    'invalid fields and 1 MiB of bad related slugs': article([], {
      title: '',
      related: mebibyteOf(() => 'a b'),
    }),
  };
  for (const [name, body] of Object.entries(hostile)) {
    test(`${name}: collecting stops once there are more than MAX_DETAILS details`, () => {
      const { validate, examined } = articleValidator();
      assert.equal(validate(body), false);
      // Before the cap, every error was collected: tens or hundreds of thousands here.
      assert.equal(examined.length, 1, 'one refusal, reported once');
      assert.ok(examined[0]! <= 10 * MAX_DETAILS, `${examined[0]} errors examined`);
      const details = describeValidationErrors(validate.errors ?? []);
      assert.equal(details.length, MAX_DETAILS + 1);
      assert.match(summarizeDetails('body', details), /\(and at least 100 more problems\)\.$/);
    });
  }

  test('the message counts the others exactly up to MAX_DETAILS', () => {
    const details = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ path: `/x/${i}`, message: 'is bad' }));
    assert.equal(summarizeDetails('body', details(1)), 'The request body is not valid: x/0 is bad.');
    assert.match(summarizeDetails('body', details(2)), /\(and 1 more problem\)\.$/);
    assert.match(summarizeDetails('body', details(MAX_DETAILS)), /\(and 99 more problems\)\.$/);
  });
});
