/**
 * Types for mvdan-sh (the mvdan/sh v3 shell parser compiled to JavaScript with GopherJS): only the
 * parts the shell guard uses. Nodes mirror the Go types of mvdan.cc/sh/v3/syntax; their fields are
 * read by name, as in Go (`node.Args`, `node.Parts`, `node.Value`).
 */
declare module 'mvdan-sh' {
  export interface ShPos {
    Offset(): number;
    Line(): number;
    Col(): number;
  }
  /** Any syntax node; its concrete type is `syntax.NodeType(node)`. */
  export interface ShNode {
    Pos(): ShPos;
    End(): ShPos;
    // biome-ignore lint/suspicious/noExplicitAny: GopherJS objects expose Go struct fields dynamically
    [field: string]: any;
  }
  export interface ShParser {
    Parse(source: string, name: string): ShNode;
  }
  const sh: {
    syntax: {
      NewParser(...options: unknown[]): ShParser;
      Variant(lang: unknown): unknown;
      LangBash: unknown;
      LangPOSIX: unknown;
      NodeType(node: ShNode): string;
      Walk(node: ShNode, visit: (node: ShNode | null) => boolean): void;
      SplitBraces(word: ShNode): ShNode;
    };
  };
  export default sh;
}
