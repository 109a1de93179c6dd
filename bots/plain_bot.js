#!/usr/bin/env node
// A random bot for the arena, written from protocol.md alone, on Node's standard library.
// It plays Avalon and Werewolf: every request it is asked, it answers with random legal
// choices. Copy it and replace `choose` (and `speech`) to write a real bot.
//
//   node bots/plain_bot.js --server 127.0.0.1:6667 --nick alice [--name NAME] [--key KEY]
//        [--referee arena] [--channel '#arena'] [--games N]
'use strict';
const net = require('net');
const crypto = require('crypto');

// ---- Command line ---------------------------------------------------------------------
const opts = { server: null, nick: null, name: null, key: process.env.ARENA_KEY || null,
               referee: 'arena', channel: '#arena', games: 0 };
for (let i = 2; i < process.argv.length; i += 2) {
  const flag = process.argv[i].replace(/^--/, ''), value = process.argv[i + 1];
  if (!(flag in opts) || value === undefined) {
    console.error('usage: plain_bot.js --server HOST:PORT --nick NICK [--name NAME] [--key KEY] '
                  + "[--referee arena] [--channel '#arena'] [--games N]");
    process.exit(2);
  }
  opts[flag] = flag === 'games' ? Number(value) : value;
}
if (!opts.server || !opts.nick) { console.error('--server and --nick are required'); process.exit(2); }
const [host, port] = opts.server.split(':');
const lower = (s) => s.toLowerCase();   // nicks compare without case (good enough for a template)
const log = (...a) => console.error(`[${opts.nick}]`, ...a);

// ---- IRC plumbing: one line per "\r\n", UTF-8 ----------------------------------------
const sock = net.connect(Number(port) || 6667, host);
sock.setEncoding('utf8');
const send = (line) => sock.write(line + '\r\n');
const say = (target, text) => send(`PRIVMSG ${target} :${text}`);
// Everything for a referee goes by DM: a game's lines to the referee that runs it (§4 "Several
// referees"), the rest to ours.
const toReferee = (text, gid) => say(runBy.get(gid) || opts.referee, text);

let nick = opts.nick;
let registered = false;    // the referee answered WELCOME (and, with a key, proved it is the referee)
let scram = null;          // the SCRAM exchange under way: { nonce, bare, signature }
let inLobby = false;       // we joined the lobby channel
let topicOk = true;        // §3 "Is it the referee?": the lobby topic does not name another nick
const games = new Map();   // GID -> { channel, moderated, voiced, wolves }: the games we sit in
const ended = new Set();   // games of ours that have ended
const pending = new Map(); // sender and where (channel or DM) -> a referee line that said more=true (§2)
let others = new Set();    // the other referees of the lobby (WELCOME referees=, REFEREES nicks=), lower-case
const runBy = new Map();   // GID -> the referee that runs it (TABLE, RESUME, RESYNC)
const nicksOf = (value) => new Set(list(value).map(lower).filter((n) => n !== lower(opts.referee)));

sock.on('connect', () => {
  send(`NICK ${nick}`);
  send(`USER ${nick} 0 * :arena plain_bot.js`);
});
let buffer = '';
sock.on('data', (chunk) => {
  buffer += chunk;
  let end;
  while ((end = buffer.search(/\r?\n/)) >= 0) {
    const line = buffer.slice(0, end);
    buffer = buffer.slice(end + (buffer[end] === '\r' ? 2 : 1));
    if (line) onIrcLine(line);
  }
});
sock.on('close', () => { log('disconnected'); process.exit(0); });
sock.on('error', (e) => { log('socket error:', e.message); process.exit(1); });

// Splits ":prefix COMMAND p1 p2 :trailing" (IRCv3 tags, "@...", are skipped).
function parseIrc(line) {
  if (line.startsWith('@')) line = line.slice(line.indexOf(' ') + 1);
  let prefix = '';
  if (line.startsWith(':')) { prefix = line.slice(1, line.indexOf(' ')); line = line.slice(prefix.length + 2); }
  const cut = line.indexOf(' :');
  const params = (cut >= 0 ? line.slice(0, cut) : line).split(' ').filter(Boolean);
  if (cut >= 0) params.push(line.slice(cut + 2));
  return { from: prefix.split('!')[0], command: params.shift().toUpperCase(), params };
}

function onIrcLine(raw) {
  const { from, command, params } = parseIrc(raw);
  const isReferee = lower(from) === lower(opts.referee);
  switch (command) {
    case 'PING': send(`PONG :${params[0] || ''}`); break;
    case '001': nick = params[0]; send(`JOIN ${opts.channel}`); break;   // welcome: join the lobby
    case '433': nick += '_'; send(`NICK ${nick}`); break;                 // nick in use: try another
    case '332': checkTopic(params[2] || ''); break;                       // the topic, on joining
    case 'TOPIC': if (lower(params[0]) === lower(opts.channel)) checkTopic(params[1] || ''); break;
    case '366': if (lower(params[1]) === lower(opts.channel)) { inLobby = true; register(); } break;
    case 'JOIN':  // §3: register again whenever the referee joins the lobby (it was restarted)
      if (isReferee && lower(params[0]) === lower(opts.channel)) register();   // (not trusted if its nick quit before)
      break;
    case 'QUIT':   // whoever takes a referee's nick next is a stranger
      if (isReferee) registered = false; else others.delete(lower(from));
      break;
    case 'NICK':
      if (lower(from) === lower(nick)) nick = params[0];
      else if (isReferee) registered = false;
      else {
        others.delete(lower(from));
        if (lower(params[0]) === lower(opts.referee)) register();   // it took its nick back
      }
      break;
    case 'MODE': onMode(params); break;
    case 'PRIVMSG':
      // §1: only lines whose sender is a referee's nick are protocol; the rest is chat.
      if ((isReferee || others.has(lower(from))) && !params[1].startsWith('\x01')) onRefereeLine(from, params[0], params[1]);
      break;
  }
}

// Werewolf game channels are moderated (+m) and the floor holder is voiced (+v).
function onMode([channel, modes = '', ...nicks]) {
  const game = [...games.values()].find((g) => lower(g.channel) === lower(channel));
  if (!game) return;
  let sign = '+';
  for (const c of modes) {
    if (c === '+' || c === '-') sign = c;
    else if (c === 'm') game.moderated = sign === '+';
    else if (c === 'v' && lower(nicks.shift() || '') === lower(nick)) {
      game.voiced = sign === '+';
      if (game.voiced && game.onVoice) { game.onVoice(); game.onVoice = null; }
    }
    else if ('beIko'.includes(c) || (c === 'l' && sign === '+')) nicks.shift();   // modes with a parameter
  }
}

// §3 "Is it the referee?": the lobby topic names the referee's nick ("arena referee: NICK ...").
// While it names another nick than ours, the real referee is not on our nick: wait.
function checkTopic(topic) {
  const named = /^arena referee: (\S+)/.exec(topic), wasOk = topicOk;
  topicOk = !named || lower(named[1]) === lower(opts.referee);
  if (!topicOk) { log(`the topic names ${named[1]} as the referee, not ${opts.referee}: waiting`); registered = false; }
  else if (!wasOk) register();   // (not on every topic: a registration under way would start over)
}

function register() {
  if (registered || !topicOk || !inLobby) return;
  const name = opts.name || opts.nick;
  let line = `REGISTER 2 name=${name} owner=plain_bot.js version=1.0`;   // §3: protocol 2
  scram = null;
  if (opts.key) {   // §3: the key is never sent; SCRAM-SHA-256 proves it, and the referee proves itself
    const nonce = crypto.randomBytes(18).toString('base64');
    scram = { nonce, bare: `n=${nick},r=${nonce}` };
    line += ` scram=${b64(`n,,${scram.bare}`)}`;
  }
  toReferee(line);
}

// ---- SCRAM-SHA-256 (§3), with Node's crypto: PBKDF2 and HMAC ---------------------------
const b64 = (text) => Buffer.from(text, 'utf8').toString('base64');
const unb64 = (value) => Buffer.from(value || '', 'base64');
const hmac = (key, data) => crypto.createHmac('sha256', key).update(data).digest();

// The client-final-message for the referee's server-first-message (and the signature its
// WELCOME must carry), or null if the challenge is not one a referee gives.
function scramFinal(serverFirst) {
  const attrs = {};
  for (const part of serverFirst.split(',')) { const eq = part.indexOf('='); if (eq === 1) attrs[part[0]] = part.slice(2); }
  const combined = attrs.r || '', count = Number(attrs.i), salt = unb64(attrs.s);
  if (!combined.startsWith(scram.nonce) || combined.length === scram.nonce.length
      || !Number.isInteger(count) || count < 4096 || count > 100000 || salt.length === 0) return null;
  const salted = crypto.pbkdf2Sync(opts.key, salt, count, 32, 'sha256');
  const clientKey = hmac(salted, 'Client Key');
  const storedKey = crypto.createHash('sha256').update(clientKey).digest();
  const withoutProof = `c=biws,r=${combined}`;   // biws: base64 of "n,,"
  const auth = `${scram.bare},${serverFirst},${withoutProof}`;
  const signature = hmac(storedKey, auth);
  const proof = Buffer.from(clientKey.map((byte, i) => byte ^ signature[i]));
  scram.signature = 'v=' + hmac(hmac(salted, 'Server Key'), auth).toString('base64');
  return `${withoutProof},p=${proof.toString('base64')}`;
}

// Before the referee is proven, only the registration's own lines count: a squatter on its
// nick must not seat us at its tables, nor get our answers.
function onRegistering(msg) {
  if (msg.verb === 'CHALLENGE' && scram) {
    const final = scramFinal(unb64(msg.fields.scram).toString('utf8'));
    if (final) toReferee(`PROOF scram=${b64(final)}`);
    else log('the referee\'s challenge is not valid: not registering');
  } else if (msg.verb === 'WELCOME') {
    const signed = Buffer.from(unb64(msg.fields.scram).toString('utf8'));
    const expected = Buffer.from((scram && scram.signature) || '');
    if (opts.key && !(expected.length && signed.length === expected.length && crypto.timingSafeEqual(signed, expected))) {
      log(`${opts.referee} did not prove it is the referee: ignoring it`);
      return;
    }
    registered = true;
    others = nicksOf(msg.fields.referees);
    log(`registered as ${msg.fields.name}`);
  } else if (msg.verb === 'ERROR') log('refused:', msg.args.join(' '), msg.text || '');
}

// ---- Protocol lines (§2): VERB args key=value ... [:text] -----------------------------
function parseProtocol(text) {
  const cut = text.indexOf(' :');
  const words = (cut >= 0 ? text.slice(0, cut) : text).split(' ').filter(Boolean);
  const msg = { verb: words.shift(), args: [], fields: {}, text: cut >= 0 ? text.slice(cut + 2) : null };
  for (const w of words) {
    const eq = w.indexOf('=');
    if (eq > 0) msg.fields[w.slice(0, eq)] = w.slice(eq + 1); else msg.args.push(w);
  }
  return msg;
}
const list = (value) => (value ? value.split(',') : []);   // an empty value is an empty list

// §2 bundled lines (protocol 2): several messages, split at " ; " before the free text.
function onRefereeLine(from, target, text) {
  const cut = text.indexOf(' :');
  const head = cut >= 0 ? text.slice(0, cut) : text;
  const parts = head.split(' ; ');
  parts[parts.length - 1] += cut >= 0 ? text.slice(cut) : '';
  for (const part of parts) onRefereeMessage(from, target, part);
}

function onRefereeMessage(from, target, text) {
  const where = `${lower(from)} ${lower(target) === lower(nick) ? 'dm' : lower(target)}`;
  let msg = parseProtocol(text);
  // §2 continued lines: hold a part with more=true; the next part from the same place has the
  // same verb and args; a field in both is a list cut at a comma.
  const held = pending.get(where);
  if (held) {
    pending.delete(where);
    for (const [k, v] of Object.entries(msg.fields)) held.fields[k] = k in held.fields ? `${held.fields[k]},${v}` : v;
    held.text = msg.text;
    msg = held;
  }
  if (msg.fields.more === 'true') { delete msg.fields.more; pending.set(where, msg); return; }
  delete msg.fields.more;
  onMessage(msg, target, from);
}

function onMessage(msg, target, from) {
  const gid = msg.args[0], who = lower(from);
  if (who === lower(opts.referee) && !registered) return onRegistering(msg);
  // §4 "Several referees": a TABLE or RESUME counts only from the referee it names; any other
  // line of a game only from the referee that runs it. A RESUME, and the RESYNC that brings a
  // game back to us, move the game to their sender.
  const game = msg.verb === 'ERROR' ? msg.args[1] : msg.verb === 'WELCOME' ? undefined : gid;
  if (['TABLE', 'RESUME'].includes(msg.verb) && lower(msg.fields.referee || opts.referee) !== who) return;
  const moves = msg.verb === 'RESUME' || (msg.verb === 'RESYNC' && msg.args[1] === 'begin');
  const runner = runBy.get(game) || (msg.verb === 'TABLE' ? from : opts.referee);   // (a new table: its sender's)
  if (game && !moves && lower(runner) !== who) return;
  // §4 "Resync": while a game's past is replayed, its channel's lines are in the block too.
  if (/^[#&]/.test(target) && (games.get(gid) || {}).replaying) return;
  switch (msg.verb) {
    case 'WELCOME': if (who === lower(opts.referee)) others = nicksOf(msg.fields.referees); break;   // registered again
    case 'REFEREES': others = nicksOf(msg.fields.nicks); break;   // the referees of the lobby now (ours stays ours)
    case 'BYE': registered = false; others.clear(); log('the referee ended our registration:', msg.text || ''); break;
    case 'ERROR': log('refused:', msg.args.join(' '), msg.text || ''); break;
    case 'TABLE':   // in the lobby: a game is seated; if we are seated, follow it to its channel
      if (list(msg.fields.seats).some((s) => lower(s) === lower(nick))) {
        games.set(gid, { channel: msg.fields.channel });
        runBy.set(gid, from);
        send(`JOIN ${msg.fields.channel}`);
      }
      break;
    case 'RESYNC':  // §4 "Resync": we came back; until `end` the lines are the game so far
      if (msg.args[1] === 'begin') {
        const old = (games.get(gid) || {}).channel;
        if (old && old !== msg.fields.channel) send(`PART ${old}`);  // a restarted referee moved the game
        games.set(gid, { channel: msg.fields.channel, seat: msg.fields.seat, replaying: true });
        runBy.set(gid, from);   // (the game may have moved to another referee while we were away)
        send(`JOIN ${msg.fields.channel}`);
      } else if (games.has(gid)) games.get(gid).replaying = false;
      break;
    case 'RESUME':  // §4 "When the referee restarts": our game goes on in a new channel
      if (list(msg.fields.seats).some((s) => lower(s) === lower(nick)) && !(games.get(gid) || {}).replaying) {
        runBy.set(gid, from);   // a failover: another referee of the lobby took the game up
        const old = (games.get(gid) || {}).channel;
        if (old !== msg.fields.channel) {
          if (old) send(`PART ${old}`);
          games.set(gid, { ...(games.get(gid) || {}), channel: msg.fields.channel });
          send(`JOIN ${msg.fields.channel}`);
        }
      }
      break;
    case 'ASK': if (!(games.get(gid) || {}).replaying) onAsk(msg); break;   // replayed requests are past
    case 'WOLVES': if (games.has(gid)) games.get(gid).wolves = list(msg.fields.wolves); break;
    case 'END':     // the game is over: leave its channel (we wait to be seated again)
      if (!games.has(gid)) break;
      log(`${gid} ended: winner=${msg.fields.winner} reason=${msg.fields.reason}`);
      send(`PART ${games.get(gid).channel}`);
      games.delete(gid);
      runBy.delete(gid);
      ended.add(gid);   // §4: a restarted referee may tell an end twice; count each game once
      if (opts.games > 0 && ended.size >= opts.games) {
        toReferee('UNREGISTER');   // after our last game: not to be seated again, then leave
        send('QUIT :done');
        setTimeout(() => process.exit(0), 500);
      }
      break;
  }
}

// ---- Requests (§4): ASK GID RID KIND to=WHO deadline=S options=... [pick=N] ------------
function onAsk(msg) {
  const [gid, rid, kind] = msg.args;
  const to = list(msg.fields.to);
  const me = (games.get(gid) || {}).seat || nick;   // after a resync: our seat's nick in START
  if (!to.some((who) => who === 'all' || lower(who) === lower(me))) return;   // not for us
  const options = list(msg.fields.options);
  const pick = Number(msg.fields.pick || 1);
  const game = games.get(gid) || {};
  if (msg.fields.floor === 'true') {
    // Werewolf §9: we hold the floor until we answer. Our lines go to the game channel; in a
    // moderated (+m) channel only once the referee has voiced us (+v), or the server drops them.
    const answer = `ANSWER ${gid} ${rid} ${options.includes('done') ? 'done' : choose(options, 1)}`;
    const speak = () => { say(game.channel, speech(kind)); toReferee(answer, gid); };
    if (!game.moderated || game.voiced) return speak();
    game.onVoice = speak;   // wait for +v, but answer (silently) in time if it never comes
    setTimeout(() => { if (game.onVoice === speak) { game.onVoice = null; toReferee(answer, gid); } }, 3000);
    return;
  }
  if (kind === 'wolf_vote' && msg.fields.day === '1' && (game.wolves || []).length > 1) {
    // Werewolf pack talk: at night a wolf may whisper to the other wolves (first night only,
    // when the whole pack is surely alive).
    toReferee(`TEAM ${gid} :I am ${nick}, voting at random tonight`, gid);
  }
  toReferee(`ANSWER ${gid} ${rid} ${choose(options, pick)}`, gid);
}

// The whole strategy: N distinct options at random.
function choose(options, n) {
  const pool = options.slice();
  const picked = [];
  while (picked.length < n && pool.length) picked.push(pool.splice(Math.floor(Math.random() * pool.length), 1)[0]);
  return picked.join(',');
}

function speech(kind) {
  return kind === 'candidacy' ? 'I will lead if you want me to.' : 'I have nothing to report.';
}
