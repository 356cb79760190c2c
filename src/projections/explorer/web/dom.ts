/**
 * Builds DOM nodes. Receipts carry text an attacker chose (tool names, reasons, parameters), so
 * text only ever becomes a text node and attributes are set one by one: nothing here parses HTML.
 * Owns: element creation. Imports nothing.
 */
export type Child = Node | string | number | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    // Event handler attributes never come from here: they would run text as code.
    if (value !== undefined && !/^on/i.test(name)) node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** A link to a route of the explorer; ids are percent-encoded into the fragment. */
export const routeLink = (route: 'session' | 'receipt', id: string, ...children: Child[]) =>
  el('a', { href: `#/${route}/${encodeURIComponent(id)}` }, ...children);

/** Unix seconds as an ISO 8601 instant in UTC (what the receipts and the CLI speak). */
export const isoTime = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

/** The first characters of a long hex value, for a table cell; the whole value is in its title. */
export const short = (hex: string, n = 12) => el('code', { title: hex }, hex.length > n ? `${hex.slice(0, n)}…` : hex);
