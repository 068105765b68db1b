import assert from 'node:assert/strict';
import { test } from 'node:test';
import { articlesPage } from './articles.ts';

test('the Articles page counts a large project with thousands separators', () => {
  const project = {
    id: 'prj_1',
    name: 'Big',
    websiteUrl: null,
    articlesPath: '',
    previewUrl: null,
    createdAt: '2026-11-28T00:00:00.000Z',
  };
  const pagination = {
    page: 2500,
    limit: 20,
    total: 50_000,
    totalPages: 2500,
    hasNext: false,
    hasPrev: true,
  };
  const page = (search: string) =>
    articlesPage(
      { csrfToken: 'csrf', flash: undefined },
      { project, baseUrl: 'http://folio.test', list: { data: [], pagination }, search },
    );
  assert.match(page(''), />50,000 articles</);
  assert.match(page('cache'), />50,000 articles with “cache” in the title</);
});
