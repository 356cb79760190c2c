/**
 * Just enough POSIX shell lexing for a guard: split a command line into simple commands at
 * `;`, `&&`, `||`, `|`, `&` and newlines, and each into words with quotes and backslashes
 * removed. It never runs or expands anything; `$(…)` and backticks stay literal text, which the
 * guard treats as suspicious on their own.
 * Owns: tokenisation. Imports nothing. The command is attacker-controlled.
 */
export interface SimpleCommand {
  words: string[];
  /** Targets of `>`, `>>`, `<` redirections. */
  redirects: string[];
}

export function splitCommands(line: string): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  let words: string[] = [];
  let redirects: string[] = [];
  let word = '';
  let inWord = false;
  let redirectNext = false;
  const endWord = () => {
    if (!inWord) return;
    if (redirectNext) redirects.push(word);
    else words.push(word);
    redirectNext = false;
    word = '';
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0 || redirects.length > 0) commands.push({ words, redirects });
    words = [];
    redirects = [];
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word += end < 0 ? line.slice(i + 1) : line.slice(i + 1, end);
      i = end < 0 ? line.length : end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== '"') {
        if (line[j] === '\\' && j + 1 < line.length) j++;
        word += line[j];
        j++;
      }
      i = j;
      inWord = true;
    } else if (c === ';' || c === '\n' || c === '|' || c === '&') {
      if (c === '&' && line[i + 1] === '>') {
        endWord();
        redirectNext = true;
        i++;
        continue;
      }
      endCommand();
      if ((c === '|' || c === '&') && line[i + 1] === c) i++;
    } else if (c === '>' || c === '<') {
      endWord();
      if (line[i + 1] === '>' || line[i + 1] === '&') i++;
      redirectNext = true;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      endWord();
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}
