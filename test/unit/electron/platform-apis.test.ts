import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../../server/package/package-files.js';

/**
 * A lint over the desktop app's code, read against Electron's own declarations (electron.d.ts as it
 * sits in node_modules): a method or property Electron tags `@platform` (app.dock on macOS only,
 * app.setAppUserModelId on Windows only, …) may be used only where a `platform` check lets no other
 * platform through. Such an API is undefined, a no-op or an error elsewhere, and the code never runs
 * here to find out. Listening for an event a platform never emits is harmless, so event names are
 * not checked.
 */
type Platform = 'darwin' | 'win32' | 'linux';
const ALL: ReadonlySet<Platform> = new Set(['darwin', 'win32', 'linux']);

/** The platforms an Electron declaration is tagged for, or null when it is not tagged @platform. */
function taggedPlatforms(declaration: ts.Declaration): Set<Platform> | null {
  const tag = ts.getJSDocTags(declaration).find((t) => t.tagName.text === 'platform');
  if (typeof tag?.comment !== 'string') return null;
  return new Set(
    tag.comment
      .split(',')
      .map((p) => p.trim())
      .filter((p): p is Platform => ALL.has(p as Platform)),
  );
}

/** The desktop app's sources, type-checked as electron/tsconfig.json has them (Electron's types resolved). */
function desktopProgram(): ts.Program {
  const configFile = packagePath('electron', 'tsconfig.json');
  const { config } = ts.readConfigFile(configFile, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, packagePath('electron'));
  return ts.createProgram({
    rootNames: parsed.fileNames.filter((name) => name.includes('/electron/')),
    options: { ...parsed.options, noEmit: true },
  });
}

/** The platforms on which `condition` holds, for conditions on a `…platform` value; all when unknown. */
function platformsWhere(condition: ts.Expression): Set<Platform> {
  if (ts.isParenthesizedExpression(condition)) return platformsWhere(condition.expression);
  if (ts.isPrefixUnaryExpression(condition) && condition.operator === ts.SyntaxKind.ExclamationToken) {
    const inner = platformsWhere(condition.operand);
    return inner.size === ALL.size ? new Set(ALL) : new Set([...ALL].filter((p) => !inner.has(p)));
  }
  if (ts.isBinaryExpression(condition)) {
    const op = condition.operatorToken.kind;
    if (op === ts.SyntaxKind.AmpersandAmpersandToken) {
      const right = platformsWhere(condition.right);
      return new Set([...platformsWhere(condition.left)].filter((p) => right.has(p)));
    }
    if (op === ts.SyntaxKind.BarBarToken) return new Set([...platformsWhere(condition.left), ...platformsWhere(condition.right)]);
    const equals = op === ts.SyntaxKind.EqualsEqualsEqualsToken || op === ts.SyntaxKind.EqualsEqualsToken;
    const differs = op === ts.SyntaxKind.ExclamationEqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsToken;
    if ((equals || differs) && /platform$/.test(condition.left.getText()) && ts.isStringLiteral(condition.right)) {
      const platform = condition.right.text as Platform;
      return equals ? new Set(ALL.has(platform) ? [platform] : []) : new Set([...ALL].filter((p) => p !== platform));
    }
  }
  return new Set(ALL);
}

/** The platforms on which the code at `node` can run, from the conditions around it. */
function platformsAt(node: ts.Node): Set<Platform> {
  let running = new Set(ALL);
  const limit = (where: Set<Platform>) => (running = new Set([...running].filter((p) => where.has(p))));
  for (let child = node, parent = node.parent; parent; child = parent, parent = parent.parent) {
    if (ts.isIfStatement(parent)) {
      const where = platformsWhere(parent.expression);
      if (child === parent.thenStatement) limit(where);
      else if (child === parent.elseStatement) limit(new Set([...ALL].filter((p) => !where.has(p))));
    } else if (ts.isConditionalExpression(parent)) {
      const where = platformsWhere(parent.condition);
      if (child === parent.whenTrue) limit(where);
      else if (child === parent.whenFalse) limit(new Set([...ALL].filter((p) => !where.has(p))));
    } else if (
      ts.isBinaryExpression(parent) &&
      parent.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken &&
      child === parent.right
    ) {
      limit(platformsWhere(parent.left));
    } else if (ts.isBlock(parent) && ts.isSourceFile(parent.parent) === false) {
      // An early `return` inside `if (platform === 'x') { … return }` leaves the rest of the block to the others.
      for (const statement of parent.statements) {
        if (statement === child) break;
        if (ts.isIfStatement(statement) && !statement.elseStatement && endsInReturn(statement.thenStatement)) {
          const where = platformsWhere(statement.expression);
          limit(new Set([...ALL].filter((p) => !where.has(p))));
        }
      }
    }
  }
  return running;
}

const endsInReturn = (statement: ts.Statement): boolean =>
  ts.isReturnStatement(statement) ||
  (ts.isBlock(statement) && statement.statements.length > 0 && ts.isReturnStatement(statement.statements.at(-1)!));

/**
 * Uses of Electron declarations tagged @platform (read through the type checker, so only Electron's
 * own API counts, not a property of the same name elsewhere) where other platforms can reach them.
 */
function findings(program: ts.Program): string[] {
  const checker = program.getTypeChecker();
  const found: string[] = [];
  for (const source of program.getSourceFiles().filter((file) => file.fileName.startsWith(packagePath('electron')))) {
    const visit = (node: ts.Node) => {
      if (ts.isPropertyAccessExpression(node) && !isEventListener(node)) {
        const declarations = checker.getSymbolAtLocation(node.name)?.declarations ?? [];
        const electrons = declarations.filter((d) => d.getSourceFile().fileName.endsWith('electron.d.ts'));
        const tags = electrons.map(taggedPlatforms);
        // Only when every declaration it resolves to is tagged (an overload without a tag works everywhere).
        if (electrons.length > 0 && tags.every((tag) => tag !== null)) {
          const allowed = new Set(tags.flatMap((tag) => [...tag!]));
          const outside = [...platformsAt(node)].filter((p) => !allowed.has(p));
          if (outside.length > 0) {
            const { line } = source.getLineAndCharacterOfPosition(node.getStart());
            found.push(
              `${source.fileName.slice(packagePath().length + 1)}:${line + 1} ${node.getText()} (@platform ${[...allowed].join(',')}) may run on ${outside.join(', ')}`,
            );
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** `x.on('event', …)` and the like: listening for an event a platform never emits is harmless. */
const isEventListener = (node: ts.PropertyAccessExpression): boolean =>
  ['on', 'once', 'addListener', 'removeListener', 'off'].includes(node.name.text);

describe("Electron's platform-only APIs", () => {
  it('are used by the desktop app only where a platform check allows them', () => {
    const program = desktopProgram();
    expect(program.getSourceFiles().filter((file) => file.fileName.startsWith(packagePath('electron'))).length).toBeGreaterThan(5);
    expect(findings(program)).toEqual([]);
  });

  it('would be caught: the lint finds what it is for', () => {
    // Each case on its own line of one probe file (one program: type-checking is the slow part).
    const cases: [string, string[]][] = [
      ['app.setAppUserModelId("x");', ['app.setAppUserModelId']],
      ['if (platform === "win32") app.setAppUserModelId("x");', []],
      ['if (platform !== "darwin") app.setAppUserModelId("x");', ['app.setAppUserModelId']],
      ['if (platform === "darwin") app.dock?.hide(); else app.dock?.hide();', ['app.dock?.hide', 'app.dock']],
      ['function f() { if (platform === "linux") return; app.getLoginItemSettings(); }', []],
      ['const x = platform === "darwin" && app.getLoginItemSettings().wasOpenedAtLogin;', []],
      ['app.on("activate", () => undefined);', []],
      // Not Electron's: a `status` of our own is not Electron's macOS-only property of that name.
      ['const agent = { status: "active" }; void agent.status;', []],
    ];
    const file = packagePath('electron', '__platform-probe.ts');
    const header = "import { app } from 'electron';\ndeclare const platform: string;\nexport {};\n";
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ['node'],
      noEmit: true,
    };
    const host = ts.createCompilerHost(options);
    const read = host.getSourceFile.bind(host);
    const exists = host.fileExists.bind(host);
    host.getSourceFile = (name, language) =>
      name === file ? ts.createSourceFile(name, header + cases.map(([code]) => code).join('\n'), language, true) : read(name, language);
    host.fileExists = (name) => name === file || exists(name);
    const found = findings(ts.createProgram({ rootNames: [file], options, host }));
    const lines = header.split('\n').length - 1;
    cases.forEach(([code, expected], index) => {
      const hits = found
        .filter((line) => line.startsWith(`electron/__platform-probe.ts:${lines + index + 1} `))
        .map((line) => line.replace(/^\S+ /, '').replace(/ \(.*$/, ''));
      expect(hits, code).toEqual(expected);
    });
  });
});
