import type { Section } from './documents';

/**
 * A small handbook of a made-up bicycle shop, split over a PDF, a DOCX and a Markdown file, and
 * questions a caller might ask with the passage that answers each (a phrase of it).
 */
export const HANDBOOK_PDF: Section[][] = [
  [
    {
      heading: 'Opening hours',
      paragraphs: [
        'Harbor Bikes opens at 9 am and closes at 6 pm from Monday to Friday.',
        'On Saturdays the shop opens at 10 am and closes at 4 pm. We are closed on Sundays and public holidays.',
      ],
    },
    {
      heading: 'Store location',
      paragraphs: [
        'The shop is at 14 Quay Street, next to the ferry terminal. Customer parking is behind the building.',
      ],
    },
  ],
  [
    {
      heading: 'Refund policy',
      paragraphs: [
        'Refunds are issued within 14 days of the returned bicycle reaching our warehouse.',
        'The refund goes back to the card used for the purchase; cash purchases are refunded by bank transfer.',
      ],
    },
    {
      heading: 'Warranty',
      paragraphs: [
        'Every frame carries a lifetime warranty against manufacturing defects. Components are covered for two years.',
      ],
    },
  ],
];

export const SERVICE_DOCX: Section[] = [
  {
    heading: 'Repair service',
    paragraphs: [
      'A standard tune-up costs 65 euros and takes two working days.',
      'Flat tyre repairs are done while you wait and cost 12 euros per wheel.',
    ],
  },
  {
    heading: 'Bike rental',
    paragraphs: [
      'City bikes rent for 20 euros per day; electric bikes rent for 45 euros per day.',
      'Renters must show a passport or an identity card and leave a deposit of 200 euros.',
    ],
  },
];

export const DELIVERY_MARKDOWN: Section[] = [
  {
    heading: 'Delivery',
    paragraphs: [
      'Orders ship within one business day. Delivery to mainland Portugal takes three business days.',
      'Delivery to the islands of Madeira and the Azores takes up to seven business days.',
    ],
  },
  {
    heading: 'Payment methods',
    paragraphs: ['We accept Visa, Mastercard, MB Way and bank transfer. Cheques are not accepted.'],
  },
];

/** A question and a phrase of the passage that answers it. */
export const QUESTIONS: { question: string; answer: string }[] = [
  { question: 'What time do you open on Saturday?', answer: 'On Saturdays the shop opens at 10 am' },
  { question: 'Where is the shop located?', answer: '14 Quay Street' },
  { question: 'How long does a refund take?', answer: 'Refunds are issued within 14 days' },
  { question: 'Is there a warranty on the frame?', answer: 'lifetime warranty' },
  { question: 'How much is a tune-up?', answer: 'tune-up costs 65 euros' },
  { question: 'Can you repair a flat tyre?', answer: 'Flat tyre repairs' },
  { question: 'How much does it cost to rent an electric bike?', answer: 'electric bikes rent for 45 euros' },
  { question: 'What deposit do renters leave?', answer: 'deposit of 200 euros' },
  { question: 'How long is delivery to the Azores?', answer: 'Madeira and the Azores' },
  { question: 'Do you accept MB Way payments?', answer: 'MB Way' },
];
