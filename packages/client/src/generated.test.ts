import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type * as Schema from '@folio/schema';
import { emitDeclarations } from '../scripts/emit-declarations.ts';
import { generatedFiles } from '../scripts/generate.ts';
import type * as Generated from './generated/schema.ts';

const generatedDir = new URL('./generated/', import.meta.url);

describe('src/generated', () => {
  it('is what @folio/schema generates now', () => {
    const expected = generatedFiles();
    assert.deepEqual(
      readdirSync(generatedDir).sort(),
      Object.keys(expected).sort(),
      'src/generated holds other files than the generator writes: run npm run generate -w @folio/client',
    );
    for (const [file, text] of Object.entries(expected)) {
      const stale = readFileSync(new URL(file, generatedDir), 'utf8') !== text;
      assert.ok(!stale, `src/generated/${file} is stale: run npm run generate -w @folio/client`);
    }
  });

  it('refuses a schema it cannot express rather than writing a looser type', () => {
    const emit = (schema: object) =>
      emitDeclarations([{ name: 'Thing', doc: 'A thing.', schema }], { lineWidth: 110 });
    assert.throws(() => emit({ type: 'array', prefixItems: [{ type: 'string' }] }), /"prefixItems"/);
    assert.throws(() => emit({ type: 'object', patternProperties: {} }), /"patternProperties"/);
    assert.throws(() => emit({ $ref: '#/$defs/nowhere' }), /names no declaration/);
    assert.match(
      emit({ anyOf: [{ type: 'string' }, { type: 'null' }] }),
      /export type Thing = string \| null;/,
    );
  });
});

// Checked by `tsc --noEmit` (npm test), not at run time: each generated type must accept every
// value of the @folio/schema type of the same name and nothing else, so drift fails typecheck.
type Same<A, B> = [A] extends [B]
  ? [B] extends [A]
    ? // Mutual assignability alone misses an optional property present on one side only.
      [keyof A] extends [keyof B]
      ? [keyof B] extends [keyof A]
        ? true
        : false
      : false
    : false
  : false;
type ExpectAllSame<T extends Record<keyof T, true>> = T;
type ErrorDetail<T extends { error: { details?: unknown[] } }> = NonNullable<T['error']['details']>[number];

export type GeneratedMatchesSchema = ExpectAllSame<{
  TextRun: Same<Generated.TextRun, Schema.TextRun>;
  FaqItem: Same<Generated.FaqItem, Schema.FaqItem>;
  HeadingBlock: Same<Generated.HeadingBlock, Schema.HeadingBlock>;
  ParagraphBlock: Same<Generated.ParagraphBlock, Schema.ParagraphBlock>;
  ListBlock: Same<Generated.ListBlock, Schema.ListBlock>;
  QuoteBlock: Same<Generated.QuoteBlock, Schema.QuoteBlock>;
  CodeBlock: Same<Generated.CodeBlock, Schema.CodeBlock>;
  ImageBlock: Same<Generated.ImageBlock, Schema.ImageBlock>;
  CalloutBlock: Same<Generated.CalloutBlock, Schema.CalloutBlock>;
  CtaBlock: Same<Generated.CtaBlock, Schema.CtaBlock>;
  FaqBlock: Same<Generated.FaqBlock, Schema.FaqBlock>;
  TableBlock: Same<Generated.TableBlock, Schema.TableBlock>;
  VideoBlock: Same<Generated.VideoBlock, Schema.VideoBlock>;
  BlockType: Same<Generated.BlockType, Schema.BlockType>;
  Block: Same<Generated.Block, Schema.Block>;
  Seo: Same<Generated.Seo, Schema.Seo>;
  RelatedLink: Same<Generated.RelatedLink, Schema.RelatedLink>;
  ArticleListItem: Same<Generated.ArticleListItem, Schema.ArticleListItem>;
  Article: Same<Generated.Article, Schema.Article>;
  Pagination: Same<Generated.Pagination, Schema.Pagination>;
  SitemapEntry: Same<Generated.SitemapEntry, Schema.SitemapEntry>;
  ErrorBody: Same<Generated.ErrorBody, Schema.ErrorBody>;
  ErrorCode: Same<Generated.ErrorCode, Schema.ErrorCode>;
  WebhookEventName: Same<Generated.WebhookEventName, Schema.WebhookEventName>;
  KeyKind: Same<Generated.KeyKind, Schema.KeyKind>;
  ArticleStatus: Same<Generated.ArticleStatus, Schema.ArticleStatus>;
  PreviewListItem: Same<Generated.PreviewListItem, Schema.PreviewListItem>;
  PreviewArticle: Same<Generated.PreviewArticle, Schema.PreviewArticle>;
  PreviewChangesPage: Same<Generated.PreviewChangesPage, Schema.PreviewChangesPage>;
  'PreviewChangesPage.changes[]': Same<Generated.PreviewChange, Schema.PreviewChangesPage['changes'][number]>;
  'ErrorBody.error': Same<Generated.ErrorBody['error'], Schema.ErrorBody['error']>;
  'ErrorBody.error.details[]': Same<ErrorDetail<Generated.ErrorBody>, ErrorDetail<Schema.ErrorBody>>;
}>;
