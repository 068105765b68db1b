/**
 * `npm run tarball -w @folio/astro -- [DIR]`: builds @folio/astro (JS and .d.ts) and packs it with `npm pack`
 * into DIR (default: dist/ at the repository root), as `npm run pack:client` does for the SDK
 * it depends on. It builds in a fresh staging directory, so no stale file of packages/astro/dist
 * can slip into the tarball.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('../', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Builds and packs the loader into `destination`; answers the tarball's path. */
export function packAstro(destination: string): string {
  const staging = mkdtempSync(join(tmpdir(), 'folio-astro-pack-'));
  try {
    writeFileSync(join(staging, 'package.json'), `${JSON.stringify(publishedManifest(), null, 2)}\n`);
    copyFileSync(join(packageDir, 'README.md'), join(staging, 'README.md'));
    const build = ['-p', join(packageDir, 'tsconfig.build.json'), '--outDir', join(staging, 'dist')];
    run(process.execPath, [tsc, ...build, '--sourceMap', 'false', '--declarationMap', 'false'], staging);
    mkdirSync(destination, { recursive: true });
    const packed = run(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', destination],
      staging,
    );
    const [{ filename }] = JSON.parse(packed) as [{ filename: string }];
    return join(destination, filename);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The manifest as installed elsewhere: no build scripts, dev dependencies or `folio-source`. */
function publishedManifest(): Record<string, unknown> {
  const {
    scripts: _scripts,
    devDependencies: _dev,
    ...manifest
  } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    exports: Record<string, string | Record<string, string>>;
  } & Record<string, unknown>;
  const exports = Object.fromEntries(
    Object.entries(manifest.exports).map(([name, target]) => {
      if (typeof target === 'string') return [name, target];
      const { 'folio-source': _source, ...conditions } = target;
      return [name, conditions];
    }),
  );
  return { ...manifest, exports };
}

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ?? ''}`;
    throw new Error(`${command} ${args.join(' ')} failed:\n${output}`);
  }
  return result.stdout;
}

if (import.meta.main) {
  // npm runs scripts in the repository root; a relative DIR means the directory it was typed in.
  const typedIn = process.env.INIT_CWD ?? process.cwd();
  const destination = resolve(typedIn, process.argv[2] ?? join(packageDir, '../../dist'));
  const tarball = packAstro(destination);
  process.stdout.write(`Packed @folio/astro into ${tarball}

Install it in your site after the @folio/client tarball (npm run pack:client), from copies:
  cd ../my-site && npm install ./vendor/folio-client-0.1.0.tgz ./vendor/${tarball.split(/[\\/]/).at(-1)}
(see packages/astro/README.md)
`);
}
