import { readFile, writeFile } from 'node:fs/promises';
import { config } from '../platform/config';
import { downloadHistory, replayHistory } from '../platform/replay';
import { connectTemporalClient } from '../platform/temporal';

const USAGE = `Usage:
  npm run replay -- <workflow-id> [--run-id <id>] [--save <file.json>]
      download the execution's history from Temporal and replay it against this checkout's workflows
  npm run replay -- --file <history.json> [--workflow-id <id>]
      replay a saved history (e.g. test/fixtures/histories/*.json)`;

interface Args {
  workflowId?: string;
  runId?: string;
  save?: string;
  file?: string;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {};
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i] ?? '';
    const value = (): string => {
      const next = argv[(i += 1)];
      if (next === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
      return next;
    };
    if (flag === '--run-id') args.runId = value();
    else if (flag === '--save') args.save = value();
    else if (flag === '--file') args.file = value();
    else if (flag === '--workflow-id') args.workflowId = value();
    else if (flag.startsWith('--')) throw new Error(`Unknown option ${flag}\n${USAGE}`);
    else args.workflowId = flag;
  }
  return args;
}

/** `npm run replay`: the operator's check that running executions still replay on new code. */
async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  let historyJson: string;
  if (args.file) {
    historyJson = await readFile(args.file, 'utf8');
  } else if (args.workflowId) {
    const settings = config();
    const client = await connectTemporalClient(settings.TEMPORAL_ADDRESS, settings.TEMPORAL_NAMESPACE);
    try {
      historyJson = await downloadHistory(client, args.workflowId, args.runId);
    } finally {
      await client.connection.close();
    }
    if (args.save) {
      await writeFile(args.save, `${historyJson}\n`);
      console.log(`Saved the history of ${args.workflowId} to ${args.save}`);
    }
  } else {
    throw new Error(USAGE);
  }
  const workflowId = args.workflowId ?? args.file ?? 'replay';
  await replayHistory(JSON.parse(historyJson), workflowId);
  console.log(`Replay of ${workflowId} passed: the current workflow code reproduces its history.`);
}

main().catch((error: unknown) => {
  console.error(`REPLAY FAILED: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
  process.exit(1);
});
