import { parseArgs, type ParseArgsConfig } from 'node:util';
import { closestOf } from '../wire/did-you-mean.js';
import { setAsideCredentialVariables } from '../linked-agent/agent-config.js';

/** What every command is given beside its arguments. */
export interface CommandContext {
  version: string;
}

/** One command of `coffer`, as the table holds it. */
export interface Command {
  name: string;
  /** Other words that run it (`--help`, `--version`). */
  aliases?: readonly string[];
  /** Its forms and what it does, as `coffer help` prints them; left out, it is not listed. */
  usage?: string;
  /** The options it takes, by name (`all` for `--all`). */
  options?: readonly string[];
  run(args: string[], context: CommandContext): Promise<number>;
}

/** A command used wrongly: said in one line, then the command's synopsis (help.ts commandSynopsis; exit 2). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command: string,
  ) {
    super(message);
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;
type ParseConfig<O extends Options> = { args: string[]; options: O; allowPositionals: boolean; strict: true };
type Parsed<O extends Options> = ReturnType<typeof parseArgs<ParseConfig<O>>>;

/** A command whose arguments are parsed by its flags (`options`) before it runs; `positionals`: it takes arguments. */
export function defineCommand<const O extends Options>(definition: {
  name: string;
  usage: string;
  options: O;
  positionals?: boolean;
  run: (parsed: Parsed<O>, context: CommandContext) => Promise<number>;
}): Command {
  const { name, usage, options, positionals = false, run } = definition;
  return {
    name,
    usage,
    options: Object.keys(options),
    run: (args, context) => {
      const parsed = parse(name, { args, options, allowPositionals: positionals, strict: true });
      // A config file named for an agent's command is the agent it acts as, over the shell's variables.
      if (typeof (parsed.values as { config?: unknown }).config === 'string') setAsideCredentialVariables();
      return run(parsed, context);
    },
  };
}

/** A negative amount ("-1", "-.5", "-5/day") is an argument to refuse in words, not an option parseArgs knows not. */
const NEGATIVE_NUMBER = /^-\.?\d/;

/**
 * A negative number right after an option that takes a value is that value (`--ask-above -1` is
 * `--ask-above=-1`), so the option's own check says what is wrong with it, not "needs a value".
 */
function negativeValuesAttached(args: readonly string[], options: Options): string[] {
  const attached: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (arg === '--') return [...attached, ...args.slice(index)];
    const name = /^--([^=]+)$/.exec(arg)?.[1];
    const next = args[index + 1];
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      attached.push(`${arg}=${next}`);
      index += 1;
    } else attached.push(arg);
  }
  return attached;
}

/** node:util parseArgs, with its errors said in a line a person reads (and the usage after it). */
function parse<O extends Options>(command: string, config: ParseConfig<O>): Parsed<O> {
  try {
    const args = negativeValuesAttached(config.args, config.options);
    // The other negative numbers go after a "--", so they stay arguments (in their order among the arguments).
    const negatives = config.allowPositionals && !args.includes('--') ? args.filter((arg) => NEGATIVE_NUMBER.test(arg)) : [];
    const parsed = negatives.length === 0 ? args : [...args.filter((arg) => !NEGATIVE_NUMBER.test(arg)), '--', ...negatives];
    const result = parseArgs({ ...config, args: parsed, tokens: true });
    onceEach(command, config.options, result.tokens);
    return result as unknown as Parsed<O>;
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    if (!code?.startsWith('ERR_PARSE_ARGS')) throw error;
    // A long option typed with one dash (-json) is read as short ones (-j, -s, …): named as typed.
    const oneDash = config.args.find((arg) => /^-[a-zA-Z][a-zA-Z-]+$/.test(arg) && arg.startsWith(/'(-[^']*)'/.exec(message)?.[1] ?? '\0'));
    const option = oneDash ?? /'(-[^']*)'/.exec(message)?.[1];
    const named = option?.replace(/^-+/, '');
    // Typed with one dash, the option itself is what was meant.
    const meant =
      named === undefined ? null : oneDash !== undefined && named in config.options ? named : closestOf(named, Object.keys(config.options));
    const said =
      code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
        ? `unknown option ${option ?? ''} for coffer ${command}${meant === null ? '' : ` (did you mean --${meant}?)`}`
        : code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
          ? `option ${option?.replace(/ .*/, '') ?? ''} needs a value`
          : code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL'
            ? `coffer ${command} takes no argument "${/'([^']*)'/.exec(message)?.[1] ?? ''}"`
            : message;
    throw new UsageError(said.replace(/\s+/g, ' ').trim(), command);
  }
}

/**
 * An option given twice that does not repeat (`--rail base --rail sol`) is refused: parseArgs keeps
 * the last one silently, and on a command that moves money the one meant may be the first.
 */
function onceEach(command: string, options: Options, tokens: readonly { kind: string; name?: string }[]): void {
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option' || token.name === undefined || options[token.name]?.multiple === true) continue;
    if (seen.has(token.name)) throw new UsageError(`option --${token.name} is given twice: give it once`, command);
    seen.add(token.name);
  }
}
