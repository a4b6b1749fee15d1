/**
 * A hint after commander's "too many arguments" error: the usual cause is a value given to an option that takes
 * none (`estimate --table t.csv`, where the file goes to `--csv`), which commander's message does not name
 * (new user 40). Pure: it reads the command's option list and the command line, writes nothing.
 */
import type { Command, Option } from "commander";

/**
 * Names each word of the command line that follows an option taking no value (a flag) of the command run, the
 * likely cause of commander's `too many arguments` error.
 * @param program the parsed program (its subcommands with their options)
 * @param argv the command line after the program name (`estimate --run r --table t.csv`)
 * @returns one hint line, or null when no word follows a flag (the extra argument is something else)
 */
export function excessArgumentHint(program: Command, argv: readonly string[]): string | null {
  const cmd = program.commands.find((c) => c.name() === argv[0]);
  if (!cmd) return null;
  const flags = new Map<string, Option>();
  for (const o of cmd.options as readonly Option[]) {
    if (o.required || o.optional) continue; // takes a value
    if (o.long) flags.set(o.long, o);
    if (o.short) flags.set(o.short, o);
  }
  const found: string[] = [];
  const end = argv.indexOf("--");
  const words = end === -1 ? argv : argv.slice(0, end);
  for (let i = 2; i < words.length; i++) {
    const word = words[i];
    const before = words[i - 1];
    if (word.startsWith("-") || !flags.has(before)) continue;
    found.push(`${JSON.stringify(word)} follows ${before}, which takes no value`);
  }
  if (found.length === 0) return null;
  return `${found.join("; ")}: give it to the option that takes it (\`ipi-judge ${cmd.name()} --help\`)`;
}
