import { finding, type DoctorDeps, type Finding } from './doctor';
import { probe, type Probe } from './doctor-http';

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** A key's check from the answer to a harmless authenticated GET. */
function keyFinding(check: string, service: string, answer: Probe, fix: string): Finding {
  if ('error' in answer) return finding(check, 'warn', `${service} could not be reached (${answer.error})`, fix);
  if (answer.status === 401 || answer.status === 403) {
    return finding(check, 'fail', `${service} refused the key (${answer.status})`, fix);
  }
  if (answer.status >= 200 && answer.status < 300) return finding(check, 'ok', `${service} accepted the key`);
  return finding(check, 'warn', `${service} answered ${answer.status}`, fix);
}

const trimmed = (url: string) => url.replace(/\/+$/, '');

/**
 * The language model and speech keys: unset ones say what calls lose, set ones are tried with a
 * read-only request (listing models, projects, the account).
 */
export async function modelAndSpeechFindings(deps: DoctorDeps): Promise<Finding[]> {
  const { config } = deps;
  const checks: Promise<Finding>[] = [];
  if (!config.LLM_API_KEY) {
    checks.push(
      Promise.resolve(
        finding(
          'LLM_API_KEY',
          'warn',
          'No language model: agents say their prompts word for word and cannot hold a conversation',
          'Set LLM_API_KEY (and LLM_BASE_URL for a provider other than OpenAI)',
        ),
      ),
    );
  } else {
    const base = trimmed(config.LLM_BASE_URL ?? OPENAI_BASE_URL);
    checks.push(
      probe(deps, `${base}/models`, { authorization: `Bearer ${config.LLM_API_KEY}` }).then((answer) =>
        keyFinding('LLM_API_KEY', `The language model at ${base}`, answer, 'Check LLM_API_KEY and LLM_BASE_URL'),
      ),
    );
  }
  if (!config.DEEPGRAM_API_KEY) {
    checks.push(
      Promise.resolve(
        finding(
          'DEEPGRAM_API_KEY',
          'warn',
          'No speech-to-text key for the service: live calls hear callers only in organizations with their own key',
          'Set DEEPGRAM_API_KEY, or give each organization its key (PUT /organizations/speech-credentials/deepgram)',
        ),
      ),
    );
  } else {
    const base = trimmed(config.DEEPGRAM_BASE_URL);
    checks.push(
      probe(deps, `${base}/v1/projects`, { authorization: `Token ${config.DEEPGRAM_API_KEY}` }).then((answer) =>
        keyFinding('DEEPGRAM_API_KEY', 'Deepgram', answer, 'Check DEEPGRAM_API_KEY'),
      ),
    );
  }
  if (config.ELEVENLABS_API_KEY) {
    // The streaming URL's host answers the REST API too.
    const base = trimmed(config.ELEVENLABS_BASE_URL.replace(/^ws/, 'http'));
    checks.push(
      probe(deps, `${base}/v1/user`, { 'xi-api-key': config.ELEVENLABS_API_KEY }).then((answer) =>
        keyFinding('ELEVENLABS_API_KEY', 'ElevenLabs', answer, 'Check ELEVENLABS_API_KEY'),
      ),
    );
  }
  return Promise.all(checks);
}
