/**
 * The mvdan/sh parser (mvdan-sh, the GopherJS build of mvdan.cc/sh/v3/syntax), in one place.
 * Owns: the import. Imports mvdan-sh only.
 */
import sh from 'mvdan-sh';

export const syntax = sh.syntax;
