// The query the regex index answers: an AND/OR tree over literal strings a file must contain
// (Russ Cox, "Regular Expression Matching with a Trigram Index"). regex-plan.ts makes one from a
// regular expression or a literal; structural search makes one from a pattern's literals; the
// index's generations look its literals up (generation.ts). `and` and `or` keep it flat, and
// `all` (no constraint) absorbs what says nothing.

export type Query = { op: 'all' } | { op: 'and'; args: Query[] } | { op: 'or'; args: Query[] } | { op: 'literal'; text: string };

export const all: Query = { op: 'all' };

export function and(...args: Query[]): Query {
  const kept: Query[] = [];
  for (const arg of args) {
    if (arg.op === 'all') continue;
    if (arg.op === 'and') kept.push(...arg.args);
    else kept.push(arg);
  }
  return kept.length === 0 ? all : kept.length === 1 ? kept[0]! : { op: 'and', args: kept };
}

export function or(...args: Query[]): Query {
  const kept: Query[] = [];
  for (const arg of args) {
    if (arg.op === 'all') return all;
    if (arg.op === 'or') kept.push(...arg.args);
    else kept.push(arg);
  }
  return kept.length === 0 ? all : kept.length === 1 ? kept[0]! : { op: 'or', args: kept };
}

export function describeQuery(query: Query): string {
  switch (query.op) {
    case 'all':
      return '*';
    case 'literal':
      return JSON.stringify(query.text);
    case 'and':
      return `(${query.args.map(describeQuery).join(' AND ')})`;
    case 'or':
      return `(${query.args.map(describeQuery).join(' OR ')})`;
  }
}
