import { readFile, writeFile } from 'node:fs/promises';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { config } from '../platform/config';
import { temporalDataConverter } from '../platform/payload-codec';
import { downloadRuns, historyJson, replayRuns, type RecordedRun, type ReplayVerdict } from '../platform/replay';
import { connectTemporalClient } from '../platform/temporal';

const USAGE = `Usage:
  npm run replay -- <workflow-id> [--run-id <id>] [--save <file.json>] [--verbose]
      download every run of the workflow id (a campaign that continued as new has several; with
      --run-id, that run and the runs before it) and replay them against this checkout's workflows
  npm run replay -- --file <history.json> [--workflow-id <id>] [--verbose]
      replay a saved history (e.g. test/fixtures/histories/*.json)
  --save writes the latest run's history; --verbose shows the bundler's and the worker's logs`;

interface Args {
  workflowId?: string;
  runId?: string;
  save?: string;
  file?: string;
  verbose: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { verbose: false };
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
    else if (flag === '--verbose') args.verbose = true;
    else if (flag.startsWith('--')) throw new Error(`Unknown option ${flag}\n${USAGE}`);
    else args.workflowId = flag;
  }
  return args;
}

async function recordedRuns(args: Args): Promise<RecordedRun[]> {
  if (args.file) {
    const history: unknown = JSON.parse(await readFile(args.file, 'utf8'));
    return [{ workflowId: args.workflowId ?? args.file, history }];
  }
  if (!args.workflowId) throw new Error(USAGE);
  const settings = config();
  const client = await connectTemporalClient(
    settings.TEMPORAL_ADDRESS,
    settings.TEMPORAL_NAMESPACE,
    temporalDataConverter(settings),
  );
  try {
    const runs = await downloadRuns(client, args.workflowId, args.runId);
    const latest = runs.at(-1);
    if (args.save && latest) await writeFile(args.save, `${historyJson(latest)}\n`);
    return runs;
  } finally {
    await client.connection.close();
  }
}

const line = (verdict: ReplayVerdict): string =>
  `  ${verdict.runId ? `run ${verdict.runId}` : verdict.workflowId}: ${verdict.events} events, ` +
  (verdict.error ? `FAILED\n    ${verdict.error}` : 'ok');

/** `npm run replay`: the operator's check that running executions still replay on new code. */
async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  // The bundler and the replay worker log at INFO; the verdict is what an operator came for.
  if (!args.verbose) Runtime.install({ logger: new DefaultLogger('WARN') });
  const runs = await recordedRuns(args);
  const name = args.workflowId ?? args.file ?? 'replay';
  const verdicts = await replayRuns(runs, { replayName: 'replay-cli', dataConverter: temporalDataConverter(config()) });
  const failed = verdicts.filter((verdict) => verdict.error);
  const events = verdicts.reduce((sum, verdict) => sum + verdict.events, 0);
  const runsText = `${verdicts.length} run${verdicts.length === 1 ? '' : 's'}, ${events} events`;
  console.log(
    failed.length === 0
      ? `REPLAY PASSED: ${name} (${runsText}): the current workflow code reproduces its history.`
      : `REPLAY FAILED: ${name}: ${failed.length} of ${runsText} do not replay on the current workflow code.`,
  );
  for (const verdict of verdicts) console.log(line(verdict));
  if (args.save) console.log(`Saved the latest run's history to ${args.save}`);
  if (failed.length > 0) process.exit(1);
}

main().catch((error: unknown) => {
  console.error(`REPLAY FAILED: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
  process.exit(1);
});
