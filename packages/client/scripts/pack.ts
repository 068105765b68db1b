/**
 * `npm run pack:client [DIR]`: builds @folio/client (JS and .d.ts) and packs it with `npm pack`
 * into DIR (default: dist/ at the repository root), a tarball a site in another repository
 * installs with `npm install ./folio-client-<version>.tgz`. It builds in a fresh staging
 * directory, so no stale file of packages/client/dist can slip into the tarball, and that
 * dist/ (which the repository's own tools use) is left alone.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('../', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Builds and packs the client into `destination`; answers the tarball's path. */
export function packClient(destination: string): string {
  return packPackage(packageDir, destination);
}

/**
 * Builds and packs the workspace package in `packageDir` (its tsconfig.build.json) into
 * `destination`; answers the tarball's path. Shared with @folio/astro's pack script.
 */
export function packPackage(packageDir: string, destination: string): string {
  const staging = mkdtempSync(join(tmpdir(), 'folio-pack-'));
  try {
    writeFileSync(
      join(staging, 'package.json'),
      `${JSON.stringify(publishedManifest(packageDir), null, 2)}\n`,
    );
    copyFileSync(join(packageDir, 'README.md'), join(staging, 'README.md'));
    // Source maps would point at src/, which the tarball does not hold.
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

/**
 * The manifest as installed elsewhere: without the repository's build scripts, its dev
 * dependencies (workspace packages that are not published) and the `folio-source` condition,
 * whose src/ files the tarball does not hold.
 */
function publishedManifest(packageDir: string): Record<string, unknown> {
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
  const tarball = packClient(destination);
  process.stdout.write(`Packed @folio/client into ${tarball}

To use it in a site in another repository, copy it there and install it from the copy:
  mkdir -p ../my-site/vendor && cp ${tarball} ../my-site/vendor/
  cd ../my-site && npm install ./vendor/${tarball.split(/[\\/]/).at(-1)}
(see packages/client/README.md, "Install in another repository")
`);
}
