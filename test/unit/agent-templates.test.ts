import { WorkflowDefinition } from '../../api/schemas/workflow-definition';
import { renderTemplate, requiredTemplateVariables } from '../../domain/agents/templates';
import { sampleDefinition } from '../helpers/agents';

// Monday 2 March 2026, 14:05:09 UTC: 09:05:09 in New York (EST), 23:05:09 in Tokyo.
const now = new Date('2026-03-02T14:05:09Z');

describe('renderTemplate', () => {
  it('fills top-level and nested initial_context and gathered_context variables', () => {
    const rendered = renderTemplate(
      'Hi {{first_name}} ({{initial_context.customer.tier}}), you chose {{gathered_context.plan}}. {{ missing }}!',
      { initialContext: { first_name: 'Ada', customer: { tier: 'gold' } }, gatheredContext: { plan: 'pro' } },
    );
    expect(rendered).toBe('Hi Ada (gold), you chose pro. !');
  });

  it('uses a fallback for a missing or empty value, in both syntaxes', () => {
    const context = { initialContext: { empty: '', zero: 0 } };
    expect(renderTemplate('{{name | there}}', context)).toBe('there');
    expect(renderTemplate('{{empty | friend}}', context)).toBe('friend');
    expect(renderTemplate('{{zero | none}}', context)).toBe('0');
    expect(renderTemplate('{{name | fallback:Sir}}', context)).toBe('Sir');
    expect(renderTemplate('{{first_name | fallback}}', context)).toBe('First Name');
  });

  it('renders objects and lists as JSON, and a literal \\n as a newline', () => {
    expect(renderTemplate('{{items}}\\n{{meta}}', { initialContext: { items: [1, 2], meta: { a: true } } })).toBe(
      '[1,2]\n{"a":true}',
    );
  });

  it('has current_time and current_weekday built-ins, in UTC or an IANA zone', () => {
    expect(renderTemplate('{{current_time}} {{current_weekday}}', { now })).toBe('2026-03-02 14:05:09 UTC Monday');
    expect(renderTemplate('{{current_time_America/New_York}}', { now })).toBe('2026-03-02 09:05:09 EST');
    expect(renderTemplate('{{current_weekday_Asia/Tokyo}}', { now })).toBe('Monday');
    expect(renderTemplate('{{current_weekday_Pacific/Kiritimati}}', { now })).toBe('Tuesday');
  });

  it('gives a bare current_weekday the zone of a current_time_<zone> in the same template', () => {
    expect(renderTemplate('{{current_time_Pacific/Kiritimati}} {{current_weekday}}', { now })).toBe(
      '2026-03-03 04:05:09 GMT+14 Tuesday',
    );
  });

  it('treats an unknown zone as a missing variable', () => {
    expect(renderTemplate('[{{current_time_Mars/Olympus}}] [{{current_time_Nowhere | later}}]', { now })).toBe(
      '[] [later]',
    );
  });
});

describe('requiredTemplateVariables', () => {
  it('lists variables without a fallback, excluding built-ins and gathered_context', () => {
    const sample = sampleDefinition(
      'Hi {{first_name}} {{last_name | }} {{ initial_context.account.id }} {{gathered_context.x}} ' +
        '{{current_time_Europe/Paris}} {{current_weekday}} {{title | fallback}} {{first_name}}',
    );
    sample.edges[0]!.data.condition = 'When {{agent_name}} is confirmed';
    expect(requiredTemplateVariables(WorkflowDefinition.parse(sample))).toEqual([
      'account',
      'agent_name',
      'first_name',
    ]);
  });

  it('ignores text of webhook and QA nodes, which run after the call', () => {
    const sample = sampleDefinition('Hello');
    const webhook = {
      id: 'hook',
      type: 'webhook',
      data: { name: 'Hook', endpoint_url: 'https://example.com', payload_template: { id: '{{workflow_run_id}}' } },
    };
    const definition = WorkflowDefinition.parse({ ...sample, nodes: [...sample.nodes, webhook] });
    expect(requiredTemplateVariables(definition)).toEqual([]);
  });
});
