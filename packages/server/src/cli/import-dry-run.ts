import { AppError } from '../errors.ts';
import { type ImportItem, type ImportResult, importItemIn } from '../services/article-transfer.ts';
import type { ServiceDeps } from '../services/deps.ts';

/**
 * What importing `items` would do, item by item: each is written through the article or draft
 * service in one transaction that is always rolled back, so the answer is exact (created,
 * updated, unchanged, a slug another article holds) and nothing is ever committed. A failed item is
 * undone to its savepoint, so every item after it is still tried; this tells the user about
 * every line that would fail, not only the first.
 */
export async function rehearseImport(
  deps: ServiceDeps,
  projectId: string,
  items: Iterable<ImportItem> | AsyncIterable<ImportItem>,
  onProgress: (done: number) => void,
): Promise<ImportResult[]> {
  const trx = await deps.db.startTransaction().execute();
  try {
    const results: ImportResult[] = [];
    for await (const item of items) {
      const attempt = await trx.savepoint('line').execute();
      try {
        const outcome = await importItemIn(attempt, deps.now, projectId, item);
        await attempt.releaseSavepoint('line').execute();
        results.push({ line: item.line, id: item.id, outcome });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        await attempt.rollbackToSavepoint('line').execute();
        results.push({ line: item.line, id: item.id, error });
      }
      onProgress(results.length);
    }
    return results;
  } finally {
    await trx.rollback().execute();
  }
}
