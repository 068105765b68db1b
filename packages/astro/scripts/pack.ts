/**
 * `npm run tarball -w @folio/astro -- [DIR]`: builds @folio/astro (JS and .d.ts) and packs it with `npm pack`
 * into DIR (default: dist/ at the repository root), as `npm run pack:client` does for the SDK
 * it depends on, and with the same steps (`packPackage`).
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packPackage } from '../../client/scripts/pack.ts';

const packageDir = fileURLToPath(new URL('../', import.meta.url));

/** Builds and packs the loader into `destination`; answers the tarball's path. */
export function packAstro(destination: string): string {
  return packPackage(packageDir, destination);
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
