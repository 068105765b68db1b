import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { BLOCK_TYPES, type BlockType, IMAGE_SIDE_MAX } from '@folio/schema';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { DIALECTS } from '../../test/databases.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

/**
 * Property test: the block schema served at /public/v1/schema/blocks.json and the ingest path
 * (PUT of an article) agree on every generated block array. Valid arrays are built from the
 * seed's block table; invalid ones are valid arrays with one mutated block. The generators are
 * checked too (every valid sample validates, every mutation is refused), so the agreement is
 * tested on both sides of the line. Set FC_SEED to replay a run that fast-check reported.
 */

const VALID_RUNS = 100;
const INVALID_RUNS = 200;
const SEED = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);

type Json = Record<string, unknown>;
/** A generated block array, with what makes it invalid (if anything) and where. */
interface Sample {
  blocks: unknown;
  why: string;
  /** Index of the mutated block; undefined when `blocks` itself is not an array. */
  index?: number;
}

// ---- Strings ----------------------------------------------------------------------------------

// The server refuses U+0000 and lone surrogates in any request body (PostgreSQL text cannot hold
// the one, UTF-8 cannot encode the other); that rule lives in the JSON parser, outside the block
// schema, so generated strings avoid both.
const storable = (value: string) => value.replaceAll('\u0000', '\u0001').toWellFormed();
// Now and then: surrogate pairs, separators and characters JSON or HTML must escape.
const awkward = fc.constantFrom('\u{10000}', '\u{10ffff}', '\u2028', '\ufeff', '<', '"', '\\', 'a');
const text = (maxLength = 24) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength }).map(storable) },
    { weight: 1, arbitrary: fc.string({ unit: awkward, maxLength }) },
  );
/** `min`–`max` code points: JSON Schema lengths count code points, not UTF-16 units. */
const codePoints = (minLength: number, maxLength: number) =>
  fc.string({ unit: 'binary', minLength, maxLength }).map(storable);

const upperOrLower = (word: string) =>
  fc
    .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
    .map((upper) => [...word].map((char, i) => (upper[i] ? char.toUpperCase() : char)).join(''));
const safeChars = fc.string({
  unit: fc.constantFrom(..."abcXYZ0189-._~!$&'()*+,;=:@%/?#é漢😀".match(/./gu)!),
  maxLength: 16,
});

// ---- Valid values -----------------------------------------------------------------------------

const httpUrl = fc
  .tuple(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.boolean())
  .chain(([url, shout]) => {
    const scheme = url.slice(0, url.indexOf(':'));
    return shout ? upperOrLower(scheme).map((s) => s + url.slice(scheme.length)) : fc.constant(url);
  });
const sitePath = fc.oneof(
  fc.constant('/'),
  fc
    .tuple(fc.constantFrom(...'abz09-_.~é%'.match(/./gu)!), safeChars)
    .map(([first, rest]) => `/${first}${rest}`),
);
const anchor = safeChars.map((rest) => `#${rest}`);
const validHref = fc.oneof(httpUrl, sitePath, anchor);
const validSource = fc.oneof(httpUrl, sitePath);
const videoId = fc.stringMatching(/^[A-Za-z0-9_-]{11}$/);
const imageSide = fc.oneof(fc.integer({ min: 1, max: IMAGE_SIDE_MAX }), fc.constantFrom(1, IMAGE_SIDE_MAX));

const textRun = fc.record(
  {
    text: text(),
    bold: fc.boolean(),
    italic: fc.boolean(),
    code: fc.boolean(),
    href: validHref,
    rel: fc.oneof(codePoints(0, 80), codePoints(78, 80)),
  },
  { requiredKeys: ['text'], noNullPrototype: true },
);
const runs = fc.array(textRun, { maxLength: 3 });

const record = <T extends Json>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }, required: Array<keyof T>) =>
  fc.record(model, { requiredKeys: required as never, noNullPrototype: true });
const id = fc.oneof(text(12), fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/));

/** One arbitrary per block type, straight from the seed's block table. */
const VALID: Record<BlockType, fc.Arbitrary<Json>> = {
  heading: record({ type: fc.constant('heading'), id, level: fc.constantFrom(2, 3, 4), text: text() }, [
    'type',
    'level',
    'text',
  ]),
  paragraph: record({ type: fc.constant('paragraph'), id, content: runs }, ['type', 'content']),
  list: record(
    { type: fc.constant('list'), id, ordered: fc.boolean(), items: fc.array(runs, { maxLength: 3 }) },
    ['type', 'ordered', 'items'],
  ),
  quote: record({ type: fc.constant('quote'), id, content: runs, attribution: text() }, ['type', 'content']),
  code: record({ type: fc.constant('code'), id, code: text(60), language: text(10) }, ['type', 'code']),
  image: record(
    {
      type: fc.constant('image'),
      id,
      url: validSource,
      alt: text(),
      caption: text(),
      width: imageSide,
      height: imageSide,
    },
    ['type', 'url', 'alt'],
  ),
  callout: record(
    { type: fc.constant('callout'), id, variant: fc.constantFrom('info', 'tip', 'warning'), content: runs },
    ['type', 'variant', 'content'],
  ),
  cta: record(
    {
      type: fc.constant('cta'),
      id,
      heading: text(),
      buttonLabel: text(),
      buttonHref: validHref,
      body: text(),
    },
    ['type', 'heading', 'buttonLabel', 'buttonHref'],
  ),
  faq: record(
    {
      type: fc.constant('faq'),
      id,
      items: fc.array(record({ question: text(), answer: runs }, ['question', 'answer']), { maxLength: 3 }),
    },
    ['type', 'items'],
  ),
  table: record(
    {
      type: fc.constant('table'),
      id,
      headers: fc.array(text(8), { maxLength: 4 }),
      rows: fc.array(fc.array(text(8), { maxLength: 4 }), { maxLength: 3 }),
    },
    ['type', 'headers', 'rows'],
  ),
  video: record(
    {
      type: fc.constant('video'),
      id,
      provider: fc.constant('youtube'),
      videoId,
      url: httpUrl,
      title: text(),
    },
    ['type', 'provider', 'videoId', 'url', 'title'],
  ),
};

const validBlock = fc.oneof(...BLOCK_TYPES.map((type) => VALID[type]));
const validBlocks = fc.array(validBlock, { maxLength: 5 });

// ---- Invalid values ---------------------------------------------------------------------------

/** What each field of each block type holds, so a mutation can pick a value it must refuse. */
type Kind =
  | 'string'
  | 'boolean'
  | 'level'
  | 'variant'
  | 'provider'
  | 'videoId'
  | 'link'
  | 'source'
  | 'http'
  | 'imageSide';
type Shape = Kind | 'runs' | 'listItems' | 'faqItems' | 'strings' | 'rows';
const FIELDS: Record<BlockType, Record<string, Shape>> = {
  heading: { level: 'level', text: 'string' },
  paragraph: { content: 'runs' },
  list: { ordered: 'boolean', items: 'listItems' },
  quote: { content: 'runs', attribution: 'string' },
  code: { code: 'string', language: 'string' },
  image: { url: 'source', alt: 'string', caption: 'string', width: 'imageSide', height: 'imageSide' },
  callout: { variant: 'variant', content: 'runs' },
  cta: { heading: 'string', buttonLabel: 'string', buttonHref: 'link', body: 'string' },
  faq: { items: 'faqItems' },
  table: { headers: 'strings', rows: 'rows' },
  video: { provider: 'provider', videoId: 'videoId', url: 'http', title: 'string' },
};
const REQUIRED: Record<BlockType, string[]> = {
  heading: ['level', 'text'],
  paragraph: ['content'],
  list: ['ordered', 'items'],
  quote: ['content'],
  code: ['code'],
  image: ['url', 'alt'],
  callout: ['variant', 'content'],
  cta: ['heading', 'buttonLabel', 'buttonHref'],
  faq: ['items'],
  table: ['headers', 'rows'],
  video: ['provider', 'videoId', 'url', 'title'],
};

const notAString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const notABoolean = fc.oneof(fc.constantFrom('true', 'false', 1, 0, null, [], {}), text(5));
const anyJson = fc
  .jsonValue()
  .map((value) => JSON.parse((JSON.stringify(value) ?? 'null').replaceAll('\\u0000', '\\u0001')) as unknown);
const notAnArray = fc.oneof(text(5), fc.integer(), fc.boolean(), fc.constant(null), fc.constant({}));

const HOSTILE_LINKS = [
  'javascript:alert(1)',
  ' JaVaScRiPt:x',
  'data:text/html,x',
  'vbscript:x',
  '//evil.example',
  '/\\evil.example',
  'java\tscript:x',
  '\u0001javascript:x',
  'https://',
  'https:///evil.example',
  'https://evil.example\\@good.example',
  '/\n/evil.example',
  'file:///etc/passwd',
  '',
];
const hostileLink = fc.oneof(
  fc.constantFrom(...HOSTILE_LINKS),
  fc
    .tuple(fc.constantFrom('javascript', 'vbscript', 'data', 'file', 'mailto', 'blob'), fc.string())
    .chain(([scheme, rest]) => upperOrLower(scheme).map((s) => `${s}:${storable(rest)}`)),
  fc
    .tuple(
      fc.constantFrom(' ', '\t', '\n', '\r', '\u000b', '\f', '\u00a0', '\ufeff', '\u2028', '\u001f'),
      validHref,
    )
    .map(([space, href]) => (href.length % 2 === 0 ? space + href : href + space)),
  fc
    .tuple(fc.constantFrom('/', '\\'), fc.webUrl())
    .map(([slash, url]) => slash + url.slice(url.indexOf('//'))),
);

/** A value that is of the right JSON type but breaks the field's constraint, or of the wrong type. */
function badValueFor(shape: Shape): fc.Arbitrary<unknown> {
  switch (shape) {
    case 'string':
      return notAString;
    case 'boolean':
      return notABoolean;
    case 'level':
      return fc.oneof(
        fc.constantFrom(1, 5, 0, -2, 6, 3.5, 2.0001, '2', '3', null, true),
        fc.integer({ min: 5 }),
      );
    case 'variant':
      return fc.oneof(fc.constantFrom('danger', 'Info', 'TIP', 'warn', 'note', '', ' info'), notAString);
    case 'provider':
      return fc.oneof(fc.constantFrom('vimeo', 'YouTube', 'youtube ', 'dailymotion', ''), notAString);
    case 'videoId':
      return fc.oneof(
        fc.stringMatching(/^[A-Za-z0-9_-]{0,10}$/),
        fc.stringMatching(/^[A-Za-z0-9_-]{12,20}$/),
        fc
          .tuple(videoId, fc.nat(10), fc.constantFrom('!', ' ', '=', '.', '/', 'é', '\n'))
          .map(([good, at, bad]) => good.slice(0, at) + bad + good.slice(at + 1)),
        notAString,
      );
    case 'link':
      return fc.oneof(hostileLink, notAString);
    case 'source':
      return fc.oneof(
        hostileLink.filter((href) => !href.startsWith('#')),
        fc.constant('#top'),
        notAString,
      );
    case 'http':
      return fc.oneof(hostileLink, sitePath, anchor, notAString);
    case 'imageSide':
      return fc.oneof(
        fc.constantFrom(0, -1, 1.5, IMAGE_SIDE_MAX + 1, '800', null, true, [], {}),
        fc.integer({ max: 0 }),
        fc.integer({ min: IMAGE_SIDE_MAX + 1 }),
        fc.double({ min: 1, max: IMAGE_SIDE_MAX, noInteger: true, noNaN: true }),
      );
    case 'runs':
    case 'strings':
    case 'listItems':
    case 'faqItems':
    case 'rows':
      return notAnArray;
  }
}

/** A text run that breaks one rule of the seed's text-run table. */
const badTextRun: fc.Arbitrary<{ run: unknown; why: string }> = textRun.chain((run) =>
  fc.oneof(
    codePoints(81, 120).map((rel) => ({
      run: { ...run, rel },
      why: `rel of ${[...rel].length} code points`,
    })),
    hostileLink.map((href) => ({ run: { ...run, href }, why: `href ${JSON.stringify(href)}` })),
    notAString.map((href) => ({ run: { ...run, href }, why: 'href not a string' })),
    fc.constant({ run: withoutKey(run, 'text'), why: 'run without text' }),
    notAString.map((value) => ({ run: { ...run, text: value }, why: 'text not a string' })),
    fc
      .tuple(fc.constantFrom('bold', 'italic', 'code'), notABoolean)
      .map(([mark, value]) => ({ run: { ...run, [mark]: value }, why: `${mark} not a boolean` })),
    notAString.map((rel) => ({ run: { ...run, rel }, why: 'rel not a string' })),
    fc
      .constantFrom('underline', 'html', 'style', 'Text', 'link', 'target', '__proto__')
      .map((key) => ({ run: withField(run, key, true), why: `unknown run field ${key}` })),
    fc
      .constantFrom(null, 'text', 3, [], true)
      .map((value) => ({ run: value, why: `run ${JSON.stringify(value)}` })),
  ),
);

function withoutKey(object: Json, key: string): Json {
  const { [key]: _dropped, ...rest } = object;
  return rest;
}

/** A copy with an own, enumerable field (even `__proto__`, which JSON can carry). */
function withField(object: Json, key: string, value: unknown): Json {
  const copy = { ...object };
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

const RUN_HOLDERS: BlockType[] = ['paragraph', 'quote', 'callout', 'list', 'faq'];

/** Puts a bad run into a run list of a block that holds text runs. */
function plantRun(type: BlockType, block: Json, run: unknown): Json {
  const copy = structuredClone(block);
  switch (type) {
    case 'paragraph':
    case 'quote':
    case 'callout':
      copy.content = [...(copy.content as unknown[]), run];
      return copy;
    case 'list': {
      const items = copy.items as unknown[][];
      copy.items = items.length === 0 ? [[run]] : [[...items[0]!, run], ...items.slice(1)];
      return copy;
    }
    case 'faq': {
      const items = copy.items as Json[];
      copy.items = [...items, { question: 'Why?', answer: [run] }];
      return copy;
    }
    default:
      throw new Error(`${type} blocks hold no text runs`);
  }
}

/** Breaks one element inside a block's arrays: an FAQ item, a table cell, a list item. */
function badElementOf(type: BlockType, block: Json): fc.Arbitrary<Mutation> | undefined {
  switch (type) {
    case 'faq':
      return fc.oneof(
        fc.constantFrom('question', 'answer').map((field) => ({
          block: { ...block, items: [{ question: 'q', answer: [] }].map((item) => withoutKey(item, field)) },
          why: `faq item without ${field}`,
        })),
        notAString.map((question) => ({
          block: { ...block, items: [{ question, answer: [] }] },
          why: 'question',
        })),
        notAnArray.map((answer) => ({
          block: { ...block, items: [{ question: 'q', answer }] },
          why: 'answer',
        })),
        fc.constant({
          block: { ...block, items: [{ question: 'q', answer: [], extra: 1 }] },
          why: 'faq extra',
        }),
        fc
          .constantFrom(null, 'q', 1)
          .map((item) => ({ block: { ...block, items: [item] }, why: 'faq item type' })),
      );
    case 'table':
      return fc.oneof(
        notAString.map((cell) => ({ block: { ...block, headers: ['a', cell] }, why: 'header not a string' })),
        notAString.map((cell) => ({ block: { ...block, rows: [['a', cell]] }, why: 'cell not a string' })),
        notAnArray.map((row) => ({ block: { ...block, rows: [row] }, why: 'row not an array' })),
      );
    case 'list':
      return notAnArray.map((item) => ({
        block: { ...block, items: [item] },
        why: 'list item not an array',
      }));
    default:
      return undefined;
  }
}

interface Mutation {
  block: unknown;
  why: string;
}

const OTHER_FIELDS = [...new Set(Object.values(FIELDS).flatMap((fields) => Object.keys(fields)))];
const UNKNOWN_TYPES = [
  'html',
  'Heading',
  'PARAGRAPH',
  'script',
  'iframe',
  '',
  ' heading',
  'constructor',
  'image ',
];

/** Every way this test knows to make one valid block invalid, weighted towards the seed's rules. */
function mutationsOf(type: BlockType, block: Json): fc.Arbitrary<Mutation> {
  const fields = FIELDS[type];
  const present = Object.keys(fields).filter((field) => field in block);
  const strangers = OTHER_FIELDS.filter((field) => !(field in fields));
  const options: Array<fc.WeightedArbitrary<Mutation>> = [
    weighted(
      3,
      fc.constantFrom('type', ...REQUIRED[type]).map((field) => ({
        block: withoutKey(block, field),
        why: `${type} without ${field}`,
      })),
    ),
    weighted(
      2,
      fc
        .tuple(fc.constantFrom('colour', 'html', 'style', 'Type', 'ID', '__proto__', ...strangers), anyJson)
        .map(([field, value]) => ({
          block: withField(block, field, value),
          why: `${type} with unknown ${field}`,
        })),
    ),
    weighted(
      6,
      fc.constantFrom(...present).chain((field) =>
        badValueFor(fields[field]!).map((value) => ({
          block: { ...block, [field]: value },
          why: `${type}.${field} = ${JSON.stringify(value)}`,
        })),
      ),
    ),
    weighted(
      1,
      notAString.map((value) => ({
        block: { ...block, id: value },
        why: `${type}.id = ${JSON.stringify(value)}`,
      })),
    ),
    weighted(
      2,
      fc
        .oneof(
          fc.constantFrom<unknown>(...UNKNOWN_TYPES),
          text(10).filter((name) => !BLOCK_TYPES.includes(name as BlockType)),
          notAString,
        )
        .map((name) => ({ block: { ...block, type: name }, why: `type ${JSON.stringify(name)}` })),
    ),
    weighted(
      1,
      fc
        .constantFrom(null, type, 11, true, [block])
        .map((value) => ({ block: value, why: 'block not an object' })),
    ),
  ];
  const element = badElementOf(type, block);
  if (element) options.push(weighted(2, element));
  if (RUN_HOLDERS.includes(type)) {
    const planted = badTextRun.map(({ run, why }) => ({
      block: plantRun(type, block, run),
      why: `${type}: ${why}`,
    }));
    options.push(weighted(6, planted));
  }
  return fc.oneof(...options);
}

function weighted<T>(weight: number, arbitrary: fc.Arbitrary<T>): fc.WeightedArbitrary<T> {
  return { weight, arbitrary };
}

const invalidBlock: fc.Arbitrary<Mutation> = fc
  .constantFrom(...BLOCK_TYPES)
  .chain((type) => VALID[type].chain((block) => mutationsOf(type, block)));

const invalidSample: fc.Arbitrary<Sample> = fc.oneof(
  {
    weight: 20,
    arbitrary: fc.tuple(validBlocks, invalidBlock, fc.nat()).map(([blocks, { block, why }, at]): Sample => {
      const index = at % (blocks.length + 1);
      return { blocks: [...blocks.slice(0, index), block, ...blocks.slice(index)], why, index };
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(validBlock, fc.constant<unknown>(null), fc.constant('[]'), fc.integer())
      .map((blocks): Sample => ({ blocks, why: 'blocks is not an array' })),
  },
);

// The seed's limits and the hostile links, always tried on top of the random samples.
const paragraphLinking = (run: Json): Json => ({ type: 'paragraph', content: [{ text: 'x', ...run }] });
const video = (fields: Json): Json => ({
  type: 'video',
  provider: 'youtube',
  videoId: 'dQw4w9WgXcQ',
  url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
  title: 'A video',
  ...fields,
});
const VALID_EXAMPLES: Json[][] = [
  [2, 3, 4].map((level) => ({ type: 'heading', level, text: 'h' })),
  [paragraphLinking({ href: 'https://example.com', rel: 'r'.repeat(80) })],
  [video({ videoId: 'a-Z_09b-Z_9' })],
  [{ type: 'image', url: '/a.png', alt: '', width: 1, height: IMAGE_SIDE_MAX }],
];
const INVALID_EXAMPLES: Sample[] = [
  ...HOSTILE_LINKS.flatMap((href): Sample[] => [
    { blocks: [paragraphLinking({ href })], why: `href ${JSON.stringify(href)}`, index: 0 },
    {
      blocks: [{ type: 'cta', heading: 'h', buttonLabel: 'b', buttonHref: href }],
      why: `buttonHref ${JSON.stringify(href)}`,
      index: 0,
    },
  ]),
  { blocks: [paragraphLinking({ rel: 'r'.repeat(81) })], why: 'rel of 81', index: 0 },
  ...[1, 5].map(
    (level): Sample => ({ blocks: [{ type: 'heading', level, text: 'h' }], why: 'level', index: 0 }),
  ),
  { blocks: [{ type: 'callout', variant: 'danger', content: [] }], why: 'variant danger', index: 0 },
  { blocks: [video({ provider: 'vimeo' })], why: 'provider vimeo', index: 0 },
  ...['dQw4w9WgXc', 'dQw4w9WgXcQQ', 'dQw4w9WgXc!'].map(
    (videoId): Sample => ({ blocks: [video({ videoId })], why: `videoId ${videoId}`, index: 0 }),
  ),
  { blocks: [{ type: 'html', html: '<script>alert(1)</script>' }], why: 'unknown type', index: 0 },
  ...[0, IMAGE_SIDE_MAX + 1, 1.5, '800'].map(
    (width): Sample => ({
      blocks: [{ type: 'image', url: '/a.png', alt: '', width, height: 600 }],
      why: `width ${JSON.stringify(width)}`,
      index: 0,
    }),
  ),
];

// ---- The property -----------------------------------------------------------------------------

function show(value: unknown): string {
  return JSON.stringify(value, null, 1);
}

for (const dialect of DIALECTS) {
  describe(`block schema and ingest agree [${dialect}]`, () => {
    let t: TestApp;
    let validate: ValidateFunction;
    let projectId: string;
    let count = 0;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      const schema = (await t.app.inject({ method: 'GET', url: '/public/v1/schema/blocks.json' })).json();
      validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
      projectId = (await t.createProject()).id;
    });
    afterEach(() => t.close());

    /** PUTs the blocks and checks the answer agrees with the served schema; returns its verdict. */
    async function checkAgreement(sample: Sample): Promise<{ valid: boolean; context: string }> {
      const schemaValid = validate(sample.blocks);
      const schemaErrors = show(validate.errors);
      count += 1;
      const body = { slug: `sample-${count}`, title: `Sample ${count}`, blocks: sample.blocks };
      const response = await t.admin('PUT', `/admin/v1/projects/${projectId}/articles/s${count}`, body);
      const context = `\nblocks: ${show(sample.blocks)}\nwhy: ${sample.why}\nschema errors: ${schemaErrors}\nPUT answered ${response.statusCode}: ${response.body}`;
      if (schemaValid) {
        assert.ok(
          [200, 201].includes(response.statusCode),
          `the schema accepts but ingest refuses${context}`,
        );
        const stored = response.json().data.blocks;
        assert.deepEqual(stored, JSON.parse(JSON.stringify(sample.blocks)), `stored blocks differ${context}`);
        return { valid: true, context };
      }
      assert.equal(response.statusCode, 400, `the schema refuses but ingest answers otherwise${context}`);
      const { error } = response.json();
      assert.equal(error.code, 'invalid_body', context);
      const paths: string[] = (error.details ?? []).map((detail: { path: string }) => detail.path);
      assert.ok(
        paths.some((path) => path === '/blocks' || path.startsWith('/blocks/')),
        `no detail names /blocks${context}`,
      );
      if (sample.index !== undefined) {
        const prefix = `/blocks/${sample.index}`;
        const elsewhere = paths.filter((path) => path !== prefix && !path.startsWith(`${prefix}/`));
        assert.deepEqual(elsewhere, [], `details must name block ${sample.index} only${context}`);
      }
      return { valid: false, context };
    }

    test(`valid block arrays are accepted by the schema and by ingest (${VALID_RUNS} runs)`, async () => {
      await fc.assert(
        fc.asyncProperty(validBlocks, async (blocks) => {
          const { valid, context } = await checkAgreement({ blocks, why: 'generated valid' });
          assert.ok(valid, `the valid generator produced a sample the schema refuses${context}`);
        }),
        {
          numRuns: VALID_RUNS,
          examples: VALID_EXAMPLES.map((blocks) => [blocks]),
          ...(SEED === undefined ? {} : { seed: SEED }),
        },
      );
    });

    test(`mutated block arrays are refused by the schema and by ingest (${INVALID_RUNS} runs)`, async () => {
      await fc.assert(
        fc.asyncProperty(invalidSample, async (sample) => {
          const { valid, context } = await checkAgreement(sample);
          assert.equal(valid, false, `the mutation did not make the sample invalid${context}`);
        }),
        {
          numRuns: INVALID_RUNS,
          examples: INVALID_EXAMPLES.map((sample) => [sample]),
          ...(SEED === undefined ? {} : { seed: SEED }),
        },
      );
    });
  });
}
