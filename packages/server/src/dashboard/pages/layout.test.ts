import assert from 'node:assert/strict';
import { test } from 'node:test';
import { confirmButton } from './layout.ts';

test("a row's confirmation names its subject to a screen reader, escaped, beside the visible label", () => {
  const markup = String(
    confirmButton({
      action: '/dashboard/projects/p/articles/a/delete',
      csrfToken: 'csrf',
      label: 'Delete…',
      question: 'Delete it for good?',
      confirmLabel: 'Delete article',
      subject: 'Fish & <chips>',
    }),
  );
  const hidden = '<span class="sr-only"> “Fish &amp; &lt;chips&gt;”</span>';
  assert.ok(markup.includes(`>Delete…${hidden}</summary>`), markup);
  assert.ok(markup.includes(`>Delete article${hidden}</button>`), markup);
});
