import { demoArticles } from '../content/demo-articles.ts';
import { countProjects } from '../store/projects.ts';
import { insertSettingIfAbsent } from '../store/settings.ts';
import { upsertArticle } from './articles.ts';
import { createContentKey } from './content-keys.ts';
import type { ServiceDeps } from './deps.ts';
import { createProject } from './projects.ts';

const DEMO_SETTING = 'demo_seeded_by';

export interface DemoProject {
  projectId: string;
  contentKey: string;
}

/**
 * On an empty database, creates the demo project with its articles and a content key. Returns
 * undefined when there was anything already, or when another process seeded at the same time.
 */
export async function seedDemoProject(
  deps: ServiceDeps,
  websiteUrl: string,
): Promise<DemoProject | undefined> {
  if ((await countProjects(deps.db)) > 0) return undefined;
  const claim = `${process.pid}-${deps.now()}-${Math.random()}`;
  if ((await insertSettingIfAbsent(deps.db, DEMO_SETTING, claim)) !== claim) return undefined;

  const project = await createProject(deps, { name: 'Folio demo blog', websiteUrl, articlesPath: '/blog' });
  // Oldest first, each published at its own date, so the list order reads like a real blog.
  const ordered = [...demoArticles].sort((a, b) => a.publishedAt.localeCompare(b.publishedAt));
  for (const { id, publishedAt, ...input } of ordered) {
    const at = Date.parse(publishedAt);
    await upsertArticle({ ...deps, now: () => at }, project.id, id, { ...input, published: true });
  }
  const key = await createContentKey(deps, project.id, 'Demo key');
  return { projectId: project.id, contentKey: key.key };
}
