import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ARTICLE_ID_PATTERN,
  type ArticleInput,
  articleInputSchema,
  BLOCK_SCHEMAS,
  BLOCK_TYPES,
  type Block,
  type BlockType,
  blocksJsonSchema,
  SlugSchema,
  type TextRun,
  TextRunSchema,
} from '@folio/schema';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { addFormats } from '../http/validation.ts';
import { type DemoArticle, demoArticles } from './demo-articles.ts';
import { fixtureArticle, fixtureRelated } from './fixture-article.ts';

// Formats as the server checks them: schedule times are date-time strings.
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true }));
const blocksSchema = blocksJsonSchema('http://localhost:8080');
const validateBlocks = ajv.compile(blocksSchema);
// The ingest body as the management API checks it, with blocks checked by the served schema.
const validateInput = ajv.compile(
  articleInputSchema({ $ref: blocksSchema.$id } as unknown as Parameters<typeof articleInputSchema>[0]),
);

const idPattern = new RegExp(ARTICLE_ID_PATTERN, 'u');
const slugPattern = new RegExp(SlugSchema.pattern!, 'u');
const lowercaseHyphenated = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type ObjectSchema = { properties: Record<string, unknown>; required?: string[] };

function optionalFields(schema: ObjectSchema): string[] {
  return Object.keys(schema.properties).filter((key) => !(schema.required ?? []).includes(key));
}

function enumOf(schema: unknown): unknown[] {
  return (schema as { enum: unknown[] }).enum;
}

function runsOf(block: Block): TextRun[] {
  switch (block.type) {
    case 'paragraph':
    case 'quote':
    case 'callout':
      return block.content;
    case 'list':
      return block.items.flat();
    case 'faq':
      return block.items.flatMap((item) => item.answer);
    default:
      return [];
  }
}

function linksOf(article: ArticleInput): string[] {
  return article.blocks.flatMap((block) => [
    ...runsOf(block).flatMap((run) => (run.href === undefined ? [] : [run.href])),
    ...(block.type === 'cta' ? [block.buttonHref] : []),
  ]);
}

function blocksOf<T extends BlockType>(
  articles: ArticleInput[],
  type: T,
): Array<Extract<Block, { type: T }>> {
  return articles.flatMap((article) =>
    article.blocks.filter((block): block is Extract<Block, { type: T }> => block.type === type),
  );
}

function assertValidBlocks(label: string, blocks: Block[]): void {
  const valid = validateBlocks(blocks);
  assert.ok(valid, `${label}: ${JSON.stringify(validateBlocks.errors, null, 2)}`);
}

function assertValidInput(label: string, { id, publishedAt, ...input }: DemoArticle): void {
  const valid = validateInput(input);
  assert.ok(valid, `${label}: ${JSON.stringify(validateInput.errors, null, 2)}`);
}

function assertTimestamp(label: string, value: string): void {
  assert.match(value, isoTimestamp, label);
  assert.equal(new Date(value).toISOString(), value, label);
}

function assertAnchorsResolve(article: ArticleInput): void {
  const blockIds = new Set(article.blocks.flatMap((block) => (block.id === undefined ? [] : [block.id])));
  for (const href of linksOf(article).filter((link) => link.startsWith('#'))) {
    assert.ok(blockIds.has(href.slice(1)), `${article.slug}: ${href} names no block id`);
  }
}

describe('demo articles', () => {
  const slugs = new Set(demoArticles.map((article) => article.slug));

  it('have blocks that validate against the served block schema', () => {
    for (const article of demoArticles) assertValidBlocks(article.id, article.blocks);
  });

  it('are valid ingest bodies, published', () => {
    for (const article of demoArticles) {
      assertValidInput(article.id, article);
      assert.equal(article.published, true, article.id);
    }
  });

  it('have unique ids and lowercase-hyphenated unique slugs', () => {
    assert.ok(demoArticles.length >= 10, 'about a dozen articles');
    assert.equal(new Set(demoArticles.map((article) => article.id)).size, demoArticles.length);
    assert.equal(slugs.size, demoArticles.length);
    for (const { id, slug } of demoArticles) {
      assert.match(id, idPattern);
      assert.match(slug, slugPattern);
      assert.match(slug, lowercaseHyphenated);
    }
  });

  it('have distinct publish times in the ten months before 2026-11-20', () => {
    const times = demoArticles.map((article) => article.publishedAt);
    for (const time of times) {
      assertTimestamp('publishedAt', time);
      assert.ok(time >= '2026-01-20T00:00:00.000Z' && time < '2026-11-20T00:00:00.000Z', time);
    }
    assert.equal(new Set(times).size, times.length);
  });

  it('together use every block type, heading level, list kind and callout variant', () => {
    const used = new Set(demoArticles.flatMap((article) => article.blocks.map((block) => block.type)));
    assert.deepEqual([...used].sort(), [...BLOCK_TYPES].sort());
    const levels = new Set(blocksOf(demoArticles, 'heading').map((block) => block.level));
    assert.deepEqual([...levels].sort(), enumOf(BLOCK_SCHEMAS.heading.properties.level));
    const variants = new Set(blocksOf(demoArticles, 'callout').map((block) => block.variant));
    assert.deepEqual([...variants].sort(), [...enumOf(BLOCK_SCHEMAS.callout.properties.variant)].sort());
    assert.deepEqual(
      new Set(blocksOf(demoArticles, 'list').map((block) => block.ordered)),
      new Set([true, false]),
    );
  });

  it('show each optional block field both set and left out', () => {
    for (const type of BLOCK_TYPES) {
      const blocks: Block[] = blocksOf(demoArticles, type);
      for (const field of optionalFields(BLOCK_SCHEMAS[type]).filter((name) => name !== 'id')) {
        assert.ok(
          blocks.some((block) => field in block),
          `a ${type} block with ${field}`,
        );
        assert.ok(
          blocks.some((block) => !(field in block)),
          `a ${type} block without ${field}`,
        );
      }
    }
  });

  it('use every text mark and each kind of link, and links to articles resolve', () => {
    const runs = demoArticles.flatMap((article) => article.blocks.flatMap(runsOf));
    for (const mark of ['bold', 'italic', 'code'] as const) {
      assert.ok(
        runs.some((run) => run[mark] === true),
        `a ${mark} run`,
      );
    }
    assert.ok(runs.some((run) => run.href?.startsWith('https://') && run.rel !== undefined));
    const links = demoArticles.flatMap(linksOf);
    assert.ok(
      links.some((href) => href.startsWith('#')),
      'an anchor link',
    );
    const articleLinks = links.filter((href) => href.startsWith('/blog/'));
    assert.ok(articleLinks.length > 0, 'a link to another article');
    for (const href of articleLinks) assert.ok(slugs.has(href.slice('/blog/'.length)), href);
    for (const article of demoArticles) assertAnchorsResolve(article);
  });

  it('relate only to other demo articles', () => {
    const withRelated = demoArticles.filter((article) => article.related !== undefined);
    assert.ok(withRelated.length >= 2, 'a few articles set related');
    for (const { slug, related = [] } of withRelated) {
      assert.equal(new Set(related).size, related.length, slug);
      for (const other of related) {
        assert.ok(slugs.has(other) && other !== slug, `${slug} relates to ${other}`);
      }
    }
  });

  it('set some seo fields, one custom JSON-LD, and never canonicalPath', () => {
    const seo = demoArticles.flatMap((article) => (article.seo === undefined ? [] : [article.seo]));
    assert.ok(seo.some((fields) => fields.title !== undefined));
    assert.ok(seo.some((fields) => fields.description !== undefined));
    assert.ok(seo.some((fields) => fields.jsonLd?.['@type'] !== undefined));
    for (const fields of seo) {
      assert.ok(!('canonicalPath' in fields));
      if (fields.ogImage != null) assert.match(fields.ogImage, /^https:\/\//);
    }
  });
});

describe('fixture article', () => {
  const { id, publishedAt, updatedAt, ...input } = fixtureArticle;

  it('has blocks that validate against the served block schema', () => {
    assertValidBlocks('fixture', fixtureArticle.blocks);
  });

  it('is a valid ingest body with a valid id, slug and dates', () => {
    assertValidInput('fixture', { id, publishedAt, ...input });
    assert.match(id, idPattern);
    assert.match(input.slug, lowercaseHyphenated);
    assertTimestamp('publishedAt', publishedAt);
    assertTimestamp('updatedAt', updatedAt);
    assert.ok(publishedAt <= updatedAt);
  });

  it('uses every block type', () => {
    const used = new Set(fixtureArticle.blocks.map((block) => block.type));
    assert.deepEqual([...used].sort(), [...BLOCK_TYPES].sort());
  });

  it('uses every optional field of every block type', () => {
    for (const type of BLOCK_TYPES) {
      const blocks: Block[] = blocksOf([fixtureArticle], type);
      for (const field of optionalFields(BLOCK_SCHEMAS[type])) {
        assert.ok(
          blocks.some((block) => field in block),
          `a ${type} block with ${field}`,
        );
      }
    }
  });

  it('uses every optional field of a text run', () => {
    const runs = fixtureArticle.blocks.flatMap(runsOf);
    for (const field of optionalFields(TextRunSchema)) {
      assert.ok(
        runs.some((run) => field in run),
        `a text run with ${field}`,
      );
    }
  });

  it('shows every heading level, list kind and callout variant, a full FAQ and table', () => {
    const levels = new Set(blocksOf([fixtureArticle], 'heading').map((block) => block.level));
    assert.deepEqual([...levels].sort(), enumOf(BLOCK_SCHEMAS.heading.properties.level));
    const variants = new Set(blocksOf([fixtureArticle], 'callout').map((block) => block.variant));
    assert.deepEqual([...variants].sort(), [...enumOf(BLOCK_SCHEMAS.callout.properties.variant)].sort());
    const lists = new Set(blocksOf([fixtureArticle], 'list').map((block) => block.ordered));
    assert.deepEqual(lists, new Set([true, false]));
    assert.ok(blocksOf([fixtureArticle], 'faq').some((block) => block.items.length >= 2));
    const tables = blocksOf([fixtureArticle], 'table');
    assert.ok(tables.some((table) => table.headers.length > 0 && table.rows.length >= 2));
    assertAnchorsResolve(fixtureArticle);
  });

  it('relates to exactly the articles of fixtureRelated, in order', () => {
    assert.deepEqual(
      fixtureRelated.map((article) => article.slug),
      fixtureArticle.related,
    );
    assert.ok(fixtureRelated.length >= 2 && fixtureRelated.length <= 3);
    for (const article of fixtureRelated) {
      assert.match(article.id, idPattern);
      assert.match(article.slug, slugPattern);
      assert.ok(article.title.length > 0);
    }
  });

  it('sets an seo title and description but never canonicalPath', () => {
    assert.ok(fixtureArticle.seo?.title);
    assert.ok(fixtureArticle.seo?.description);
    assert.ok(!('canonicalPath' in fixtureArticle.seo));
  });
});
