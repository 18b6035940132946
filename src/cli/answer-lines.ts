// How the CLI and the MCP tools write one answer's entries as lines of text: a symbol, a symbol
// reached through the graph, a debug session's state, an outline, a diagnostic, a reference, a file's chunks, a team join, push and status. One wording for
// every client, so an agent reading the MCP answer and a user reading the terminal see the same.
import type {
  ChunksResult,
  DebugStateResult,
  LspDiagnostic,
  OutlineSymbol,
  RelatedSymbol,
  TeamJoinResult,
  TeamPushResult,
  TeamStatusResult,
  WireRange,
  WireReference,
  WorkspaceStatus,
} from '../protocol/methods.js';

/** `path:line:column: kind Container.name` (the name's position). */
export function symbolLine(symbol: { path: string; selectionRange: WireRange; kind: string; container: string[]; name: string }): string {
  return `${symbol.path}:${symbol.selectionRange.start.line}:${symbol.selectionRange.start.column}: ${symbol.kind} ${[...symbol.container, symbol.name].join('.')}`;
}

/** `distance  symbol  (confidence, sites[, via name])`. */
export function relatedLine(entry: RelatedSymbol): string {
  const where = entry.symbol ? symbolLine(entry.symbol) : `${entry.path}: (top-level code)`;
  const sites = entry.sites.length === 1 ? '1 site' : `${entry.sites.length} sites`;
  return `${entry.distance}  ${where}  (${entry.confidence}, ${sites}${entry.from && entry.distance > 1 ? `, via ${entry.from.name}` : ''})`;
}

/** The session's phase, its frames with their locals, and the last lines of its output. */
export function describeDebugState(state: DebugStateResult): string {
  const lines = [
    `${state.session} ${state.phase}${state.stop ? ` (${state.stop.reason}${state.stop.description ? `: ${state.stop.description}` : ''})` : ''}${state.exitCode === undefined ? '' : `, exit code ${state.exitCode}`}; ${state.remainingSeconds} s left`,
  ];
  for (const frame of state.frames) {
    lines.push(`  #${frame.id} ${frame.name} at ${frame.path ?? '?'}:${frame.line}`);
    for (const variable of frame.locals ?? []) lines.push(`      ${variable.name} = ${variable.value}${variable.type ? `  (${variable.type})` : ''}`);
  }
  if (state.breakpoints.length > 0)
    lines.push(
      `  breakpoints ${state.breakpoints.map((point) => `${point.path}:${point.line}${point.verified ? '' : ` (not verified${point.message ? `: ${point.message}` : ''})`}`).join(', ')}`,
    );
  if (state.output.length > 0) lines.push('  output:', ...state.output.slice(-10).map((line) => `    ${line}`));
  return lines.join('\n');
}

/** A file's definitions as an indented tree: `kind name  path:line`, children two spaces deeper. */
export function outlineLines(path: string, symbols: OutlineSymbol[], depth = 0): string[] {
  return symbols.flatMap((symbol) => [
    `${'  '.repeat(depth)}${symbol.kind} ${symbol.name}  ${path}:${symbol.selectionRange.start.line}`,
    ...outlineLines(path, symbol.children, depth + 1),
  ]);
}

const severities = ['', 'error', 'warning', 'info', 'hint'];

/** `path:line:column: severity: message [source code]`, 1-based (LSP's are 0-based). */
export function diagnosticLine(path: string, diagnostic: LspDiagnostic): string {
  return `${path}:${diagnostic.range.start.line + 1}:${diagnostic.range.start.character + 1}: ${severities[diagnostic.severity ?? 1] ?? 'error'}: ${diagnostic.message.split('\n')[0]}${diagnostic.code !== undefined ? ` [${diagnostic.source ?? ''}${diagnostic.source ? ' ' : ''}${diagnostic.code}]` : ''}`;
}

/** 1.5 KiB, 903.3 MiB. */
export function humanBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

/** `fathom status`'s block for one workspace: file set, each index's state, size, build and lag, the syntax passes, the watcher, search. */
export function describeWorkspace(status: WorkspaceStatus): string {
  const skipped = Object.entries(status.skipped)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  const lines = [
    `${status.root}: ${status.state}${status.git ? ' (git)' : ''}${status.file === undefined ? '' : ` (one file: ${status.file})`}`,
    `  files    ${status.files} (${humanBytes(status.bytes)})`,
    `  skipped  ${skipped || 'none'}`,
    `  merkle   ${status.merkleRoot ?? '-'}`,
    `  indexes  ${Object.entries(status.indexes)
      .map(([name, state]) => `${name} ${state}`)
      .join(', ')}`,
    ...Object.entries(status.indexFacts ?? {}).map(
      ([name, fact]) =>
        `    ${name.padEnd(9)}${fact.state}${fact.state === 'off' ? (fact.reason ? ` (${fact.reason})` : '') : fact.state === 'absent' && fact.bytes > 0 ? ` in memory; ${humanBytes(fact.bytes)} on disk, read on first use` : `: ${fact.files} files, ${humanBytes(fact.bytes)}, ${fact.lagFiles} behind${fact.lastBuild ? `, built in ${(fact.lastBuild.ms / 1000).toFixed(1)} s at ${fact.lastBuild.at}` : ''}`}`,
    ),
    ...(status.syntaxPass && status.syntaxPass.files > 0
      ? [
          `  syntax   ${status.syntaxPass.files} files read, ${status.syntaxPass.parses} parses (${(status.syntaxPass.parseMs / 1000).toFixed(1)} s parsing, ${(status.syntaxPass.workerMs / 1000).toFixed(1)} s on workers); from another index's pass: ${Object.entries(
            status.syntaxPass.shared,
          )
            .map(([product, count]) => `${product} ${count}`)
            .join(', ')}`,
        ]
      : []),
    `  watcher  ${status.watcher.state}, ${status.watcher.folders} folders${status.watcher.problem ? ` (${status.watcher.problem})` : ''}`,
    `  lag      ${status.lag.pendingChanges} pending${status.lag.lastChangeAppliedAt ? `, last change applied ${status.lag.lastChangeAppliedAt}` : ''}`,
  ];
  if (status.search) {
    const ranking = status.search.ranking;
    const semantic = status.search.semantic;
    const semanticText =
      semantic.state === 'off'
        ? `off (${semantic.reason})`
        : `${semantic.state}: ${semantic.model.dir} (${semantic.model.dimensions}-d), ${semantic.store.loaded === 'unopened' ? 'saved store not opened yet (the first search in words opens it)' : `${semantic.files} files, ${semantic.chunks} chunks`}, ${semantic.pendingFiles} changed since the last sync${semantic.store.loaded === 'rebuilt' ? `; saved store rebuilt (${semantic.store.reason ?? 'refused'})` : ''}${semantic.lastSync && semantic.lastSync.repaired > 0 ? `; ${semantic.lastSync.repaired} damaged cached vectors embedded again` : ''}${semantic.seeded ? `; ${semantic.seeded.files} files (${semantic.seeded.chunks} chunks) came from ${semantic.seeded.from}` : ''}${semantic.staged > 0 ? `; ${semantic.staged} vectors searched exactly until the graph takes them` : ''}`;
    lines.push(
      `  search   ranking ${ranking.state}${ranking.state === 'ready' ? `: ${ranking.files} files, ${ranking.chunks} chunks, ${ranking.lagFiles} behind` : ''}; semantic ${semanticText}`,
    );
    const regex = status.search.regex;
    const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
    if (regex)
      lines.push(
        `  grep     regex index ${regex.state}${regex.state === 'ready' ? `: ${regex.files} files + ${regex.deltaFiles} in its delta, ${regex.freshFiles} read fresh; ${mib(regex.indexBytes)} index + ${mib(regex.contentBytes)} content on disk, ${mib(regex.memoryBytes)} in memory` : ''}`,
      );
  }
  if (status.lastScan)
    lines.push(
      `  scan     ${status.lastScan.kind} at ${status.lastScan.at}: ${status.lastScan.durationMs} ms, ${status.lastScan.hashed} hashed, ${status.lastScan.reused} reused`,
    );
  if (status.error) lines.push(`  error    ${status.error}`);
  return lines.join('\n');
}

/** `path:line:column: text  (kind[, confidence])`: one reference to a symbol. */
export function referenceLine(reference: WireReference): string {
  return `${reference.path}:${reference.range.start.line}:${reference.range.start.column}: ${reference.text}  (${reference.kind}${reference.confidence === 'exact' ? '' : `, ${reference.confidence}`})`;
}

/** A file's chunks: a summary line, then each chunk's range, flags, boxed header and text. */
export function chunkLines(result: ChunksResult): string[] {
  const problems = result.problems.length > 0 ? ` (${result.problems.join('; ')})` : '';
  const lines = [
    `${result.path}: ${result.languageName ?? 'no grammar'}, ${result.chunks.length} chunks, ${result.byteLength} bytes${result.parseErrors ? ', has syntax errors' : ''}${problems}`,
  ];
  for (const chunk of result.chunks) {
    const flags = [chunk.method === 'lines' ? 'lines' : '', chunk.parseError ? 'parse error' : '', chunk.oversized ? 'oversized' : ''].filter(Boolean);
    lines.push(
      `\n── ${result.path}:${chunk.start.line}-${chunk.end.column === 1 ? chunk.end.line - 1 : chunk.end.line} [${chunk.startByte}, ${chunk.endByte})${flags.length > 0 ? ` (${flags.join(', ')})` : ''}`,
    );
    lines.push(
      chunk.header
        .split('\n')
        .map((line) => `│ ${line}`)
        .join('\n'),
    );
    if (chunk.text !== undefined) lines.push(chunk.text);
  }
  return lines;
}

/** What a team join gave: the files and chunks taken, from which store and snapshot, or why none. */
export function joinLine(result: TeamJoinResult): string {
  if (result.alreadyIndexed) return `${result.root}: its semantic index holds vectors already; nothing taken from ${result.store}`;
  const nearest = result.nearest
    ? `nearest snapshot #${result.nearest.id}, ${result.nearest.distance} bits away${result.nearest.sameTree ? ', this very tree' : ''}`
    : 'no snapshot of this model yet';
  return `${result.root}: ${result.seeded.files} files (${result.seeded.chunks} chunks) from ${result.store} (${result.fetchedFiles} of ${result.distinctFiles} distinct contents held there; ${nearest}; ${humanBytes(result.vectorBytes)} in ${(result.ms / 1000).toFixed(1)} s); the rest is embedded here`;
}

export function pushLine(result: TeamPushResult): string {
  const took = `${(result.ms / 1000).toFixed(1)} s`;
  if (result.upToDate)
    return `${result.root} → ${result.store}: up to date (snapshot ${result.snapshot.id} holds this tree whole: ${result.files} files; ${took})`;
  const skipped = result.skippedFiles > 0 ? `; ${result.skippedFiles} files left for the next push (their vectors are being embedded again)` : '';
  return `${result.root} → ${result.store}: ${result.uploaded.vectors} vectors and ${result.uploaded.files} files' records sent (${result.files} files checked, ${humanBytes(result.bytesSent)}, ${took}); snapshot ${result.snapshot.id}${result.snapshot.created ? '' : ' (already there)'}${skipped}`;
}

export function teamStatusLines(result: TeamStatusResult): string {
  const nearest = result.nearest[0];
  return [
    `${result.root}: team store ${result.store} (schema ${result.schemaVersion}), team key ${result.teamKeyId}, model ${result.modelId}`,
    `  the store holds ${result.held.files} of this workspace's ${result.held.distinctFiles} distinct files (${result.held.chunks} chunks)`,
    nearest
      ? `  nearest snapshot: #${nearest.id} of ${nearest.createdAt}, ${nearest.fileCount} files, ${nearest.distance} bits from this tree${nearest.sameTree ? ' (this very tree)' : ''}`
      : '  no snapshot of this model yet: fathom team push',
    ...(result.seeded
      ? [`  ${result.seeded.files} files (${result.seeded.chunks} chunks) of its semantic index came from ${result.seeded.from} at ${result.seeded.at}`]
      : []),
  ].join('\n');
}
