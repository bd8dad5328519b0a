import assert from 'node:assert/strict';
import { Mailer } from '../../lib/mail';
import { parseMessage, startMailSink, type MailSink } from '../../tools/stack/mail-sink';
import { request } from '../support/http';
import { sinkMessages } from '../support/mail';
import { eventually } from '../support/poll';

describe('dev mail sink', function () {
  let sink: MailSink;
  let mailer: Mailer;

  before(async () => {
    sink = await startMailSink({ smtpPort: 0, httpPort: 0, maxMessages: 3 });
    mailer = new Mailer({ smtpUrl: sink.smtpUrl, from: 'Payrail <no-reply@payrail.local>' });
  });
  after(async () => sink?.stop());

  it('keeps what the Mailer sends and decodes UTF-8 subjects and quoted-printable or base64 bodies', async () => {
    const plain = 'Your code is 123456\n\nIt expires soon.\n';
    const accented = `Grüße aus Zürich — ✓ 🎉\n${'long line '.repeat(30)}\nend=of=line\n`;
    const chinese = '支付已完成。金额：12.50 USDC\n';
    await mailer.send({ to: 'plain@sink.test', subject: 'Your Payrail login code', text: plain });
    await mailer.send({ to: 'Accented@Sink.test', subject: 'Reçu — paiement ✓', text: accented });
    await mailer.send({ to: 'chinese@sink.test', subject: '收据', text: chinese });

    const [first] = await sinkMessages(sink.url, 'plain@sink.test');
    assert.ok(first);
    assert.equal(first.subject, 'Your Payrail login code');
    assert.equal(first.text.trimEnd(), plain.trimEnd());
    assert.equal(first.from, 'no-reply@payrail.local');
    assert.deepEqual(first.to, ['plain@sink.test']);
    assert.ok(!Number.isNaN(Date.parse(first.receivedAt)));

    const [second] = await sinkMessages(sink.url, 'accented@sink.test');
    assert.equal(second?.subject, 'Reçu — paiement ✓');
    assert.equal(second?.text.trimEnd(), accented.trimEnd());
    const [third] = await sinkMessages(sink.url, 'chinese@sink.test');
    assert.equal(third?.subject, '收据');
    assert.equal(third?.text.trimEnd(), chinese.trimEnd());
  });

  it('parses folded headers, Q and B encoded words, soft line breaks and base64 bodies', () => {
    const qp = parseMessage(
      Buffer.from(
        'Subject: =?UTF-8?Q?Re=C3=A7u_?=\r\n =?UTF-8?B?4pyT?= done\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n' +
          'Gr=C3=BC=C3=9Fe, a soft=\r\n break; 1+1=3D2\r\n',
      ),
    );
    assert.deepEqual(qp, { subject: 'Reçu ✓ done', text: 'Grüße, a soft break; 1+1=2\n' });
    const b64 = parseMessage(Buffer.from(`Subject: plain\r\nContent-Transfer-Encoding: BASE64\r\n\r\n${Buffer.from('支付 ✓\n').toString('base64')}\r\n`));
    assert.deepEqual(b64, { subject: 'plain', text: '支付 ✓\n' });
  });

  it('keeps only the newest messages, and answers unknown paths with a JSON 404', async () => {
    for (const n of [1, 2, 3, 4]) await mailer.send({ to: `bounded-${n}@sink.test`, subject: `n${n}`, text: 'x' });
    const all = await eventually('four more messages', 5000, async () => {
      const messages = (await request<Array<{ subject: string }>>(`${sink.url}/messages`)).body;
      return messages.at(-1)?.subject === 'n4' ? messages : undefined;
    });
    assert.deepEqual(all.map((m) => m.subject), ['n2', 'n3', 'n4']);
    const res = await request<{ error: string }>(`${sink.url}/nothing`);
    assert.equal(res.status, 404);
    assert.match(res.contentType ?? '', /^application\/json\b/);
    assert.equal(res.body.error, 'not_found');
  });
});
