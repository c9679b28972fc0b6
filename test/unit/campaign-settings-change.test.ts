import { UpdateCampaignRequest } from '../../api/schemas/campaigns';
import { settingsForCreate } from '../../domain/campaigns/campaign-settings';
import {
  CAMPAIGN_LIMITS,
  CampaignSettingsSchema,
  DEFAULT_CIRCUIT_BREAKER,
  DEFAULT_RETRY_CONFIG,
  settingsChangeProblem,
} from '../../domain/campaigns/settings';

/** The `configureCampaign` validator and `PATCH /campaign/{id}` accept and refuse the same values. */

const retry = DEFAULT_RETRY_CONFIG;
const breaker = { ...DEFAULT_CIRCUIT_BREAKER, enabled: true };
const schedule = {
  enabled: true,
  timezone: 'UTC',
  slots: [{ day_of_week: 0, start_time: '09:00', end_time: '17:00' }],
};

const cases: [string, Record<string, unknown>][] = [
  ['max_concurrency at its bounds', { max_concurrency: CAMPAIGN_LIMITS.max_concurrency.max }],
  ['max_concurrency above', { max_concurrency: CAMPAIGN_LIMITS.max_concurrency.max + 1 }],
  ['max_concurrency below', { max_concurrency: 0 }],
  ['a fractional max_concurrency', { max_concurrency: 1.5 }],
  ['retries at the bound', { retry_config: { ...retry, max_retries: CAMPAIGN_LIMITS.max_retries.max } }],
  ['too many retries', { retry_config: { ...retry, max_retries: CAMPAIGN_LIMITS.max_retries.max + 1 } }],
  ['a delay too long', { retry_config: { ...retry, retry_delay_seconds: 86_401 } }],
  ['a breaker threshold of 0', { circuit_breaker: { ...breaker, failure_threshold: 0 } }],
  ['a breaker window too short', { circuit_breaker: { ...breaker, window_seconds: 9 } }],
  ['a schedule', { schedule_config: schedule }],
  ['an unknown timezone', { schedule_config: { ...schedule, timezone: 'Mars/Olympus' } }],
  [
    'a slot ending before it starts',
    { schedule_config: { ...schedule, slots: [{ ...schedule.slots[0], end_time: '08:00' }] } },
  ],
  ['no slot', { schedule_config: { ...schedule, slots: [] } }],
  ['no schedule', { schedule_config: null }],
  ['a long name', { name: 'x'.repeat(CAMPAIGN_LIMITS.name.max + 1) }],
];

it.each(cases)('%s: both accept, or both refuse', (_, change) => {
  const rest = UpdateCampaignRequest.safeParse(change).success;
  expect({ change, workflow: settingsChangeProblem(change) === null }).toEqual({ change, workflow: rest });
});

it('refuses what only a direct Update could send: a wrong type, an unknown key, nothing', () => {
  expect(settingsChangeProblem({ retry_config: 'nonsense' })).toMatch(/^retry_config: /);
  expect(settingsChangeProblem({ unknown_setting: 1 })).toMatch(/unknown_setting/);
  expect(settingsChangeProblem({})).toBe('change: No setting to change');
});

it('the complete settings schema accepts the settings a create fills in with the defaults', () => {
  const settings = settingsForCreate({ name: 'March reminders', fallback_telephony_configuration_id: 3 });
  expect(CampaignSettingsSchema.safeParse(settings).success).toBe(true);
  expect(CampaignSettingsSchema.safeParse({ ...settings, voicemail_action: 'shout' }).success).toBe(false);
});
