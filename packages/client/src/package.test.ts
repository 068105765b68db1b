import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { describe, it } from 'node:test';

const packageDir = new URL('../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', packageDir), 'utf8')) as {
  sideEffects: boolean;
  dependencies: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
};

/** Every module the main entry loads, following relative imports, with its source. */
function moduleGraph(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (url: URL) => {
    if (seen.has(url.href)) return;
    const source = readFileSync(url, 'utf8');
    seen.set(url.href, source);
    for (const [, specifier] of source.matchAll(/^(?:import|export)[^;]*?from '([^']+)'/gm)) {
      if (specifier!.startsWith('.')) visit(new URL(specifier!, url));
    }
  };
  visit(new URL(entry, packageDir));
  return seen;
}

const withoutComments = (source: string) =>
  source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '');

describe('@folio/client package', () => {
  it('keeps the main entry on Web APIs only (no Node modules, Buffer or process)', () => {
    const graph = moduleGraph('src/index.ts');
    assert.ok(graph.size > 5);
    const builtins = new Set(builtinModules);
    for (const [file, source] of graph) {
      assert.doesNotMatch(file, /\/node\.ts$/);
      for (const [, specifier] of source.matchAll(/from '([^']+)'/g)) {
        assert.ok(
          !specifier!.startsWith('node:') && !builtins.has(specifier!),
          `${file} imports ${specifier}`,
        );
      }
      assert.doesNotMatch(withoutComments(source), /\bBuffer\b|\bprocess\.|\brequire\(/, file);
    }
  });

  it('depends only on standardwebhooks at run time, without side effects', () => {
    assert.deepEqual(Object.keys(manifest.dependencies), ['standardwebhooks']);
    assert.equal(manifest.sideEffects, false);
  });

  it('imports no package but standardwebhooks from either entry (schema types are generated)', () => {
    for (const entry of ['src/index.ts', 'src/node.ts']) {
      for (const [file, source] of moduleGraph(entry)) {
        for (const [, specifier] of source.matchAll(/^(?:import|export)[^;]*?from '([^'.][^']*)'/gm)) {
          const allowed = specifier === 'standardwebhooks' || specifier!.startsWith('node:');
          assert.ok(allowed, `${file} imports ${specifier}`);
        }
      }
    }
  });

  it('maps each entry to its source (folio-source) and to built JS and types', () => {
    for (const name of ['.', './node']) {
      const entry = manifest.exports[name] as Record<string, string>;
      const base = name === '.' ? 'index' : 'node';
      assert.deepEqual(Object.keys(entry), ['folio-source', 'types', 'default'], 'order decides resolution');
      assert.equal(entry['folio-source'], `./src/${base}.ts`);
      assert.equal(entry.types, `./dist/${base}.d.ts`);
      assert.equal(entry.default, `./dist/${base}.js`);
      assert.ok(existsSync(new URL(entry['folio-source']!, packageDir)));
    }
  });

  it('imports by package name from source under the folio-source condition', () => {
    const script = `
      const main = await import('@folio/client');
      const node = await import('@folio/client/node');
      console.log(JSON.stringify({ main: Object.keys(main).sort(), node: Object.keys(node).sort(), at: import.meta.resolve('@folio/client') }));
    `;
    const run = spawnSync(
      process.execPath,
      [
        '--conditions=folio-source',
        '--disable-warning=ExperimentalWarning',
        '--input-type=module',
        '-e',
        script,
      ],
      { cwd: packageDir, encoding: 'utf8' },
    );
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout) as { main: string[]; node: string[]; at: string };
    assert.ok(out.at.endsWith('/packages/client/src/index.ts'));
    for (const name of [
      'createClient',
      'FolioError',
      'renderBlocks',
      'renderHead',
      'sitemapXml',
      'verifyWebhook',
    ]) {
      assert.ok(out.main.includes(name), name);
    }
    assert.ok(!out.main.includes('createWebhookHandler'), 'the Node handler stays out of the main entry');
    assert.deepEqual(out.node, ['createMemoryIdStore', 'createWebhookHandler']);
  });
});
