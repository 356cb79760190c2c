/**
 * The mvdan/sh parser (mvdan-sh, the GopherJS build of mvdan.cc/sh/v3/syntax), in one place,
 * loaded on first use: initialising it costs a quarter of a second, which every CLI start would
 * otherwise pay whether or not it judges a shell command.
 * Owns: the import. Imports mvdan-sh only.
 */
import { createRequire } from 'node:module';
import type sh from 'mvdan-sh';

type Syntax = typeof sh.syntax;

let loaded: Syntax | undefined;
const load = (): Syntax => (loaded ??= (createRequire(import.meta.url)('mvdan-sh') as typeof sh).syntax);

export const syntax: Syntax = new Proxy({} as Syntax, {
  get: (_target, key) => load()[key as keyof Syntax],
});
