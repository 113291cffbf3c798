/* The sandbox page: a Slack-like DM with the approvals bot, as any person in the directory.
 *
 * State comes from the stand-in (GET /sandbox/snapshot); every change to it arrives as a
 * server-sent event and triggers a fresh snapshot, rendered with keyed, per-message updates.
 * What the person does goes to /sandbox/... and from there to the bot, signed like Slack.
 * The "Slack | 飞书" switch shows the same person's Feishu chat instead (feishu.js); the URL's
 * hash is the person (#U0…) or, on Feishu, #feishu/U0….
 */
"use strict";

(function () {
  const BK = window.BlockKit;
  const { h } = BK;
  const $ = (id) => document.getElementById(id);

  const state = {
    info: null,
    people: [],
    byUser: {},
    user: null,
    snap: null,
    tab: "messages",
    platform: "slack",
    threadTs: null,
    unread: new Set(),
    modalKey: null,
    homeKey: null,
    msgCache: new Map(),
    threadCache: new Map(),
  };

  let feishu = null; // the Feishu view (feishu.js), made at start
  let slackLive = false;

  const PALETTE = ["#e8912d", "#2bac76", "#1264a3", "#9f69a8", "#e01e5a", "#4a154b", "#3aa3e3", "#c77d14", "#5b8a72", "#c25e8e", "#0b8484", "#7b5ea7"];
  const GROUP_WINDOW_S = 300;

  // ---- server ----------------------------------------------------------------------------

  const NET = window.SandboxCommon;
  const getJSON = NET.getJSON;

  /** POST to the sandbox; a failure is shown (in the viewer's language) and thrown again. */
  async function post(url, body) {
    let data;
    try {
      data = await NET.post(url, body);
    } catch (err) {
      toast(NET.explain(err, zh()));
      throw err;
    }
    if (data && data.status && data.status !== 200) toast(NET.say("bot", zh(), { status: data.status }));
    return data;
  }

  // ---- people and avatars ------------------------------------------------------------------

  function botId() {
    return state.info ? state.info.bot.user_id : "";
  }

  function me() {
    return state.byUser[state.user] || null;
  }

  const t = (en, cn) => (zh() ? cn : en);
  const titleOf = (p) => NET.titleOf(p, zh());
  const teamOf = (p) => NET.teamOf(p, zh());

  /** Whether the page speaks Chinese: the person it shows reads Chinese (the directory's locale). */
  function zh() {
    const p = me();
    return Boolean(p && p.locale === "zh");
  }

  /** The locales for dates and times: the person's, as their Slack client would use. */
  function locales() {
    return zh() ? ["zh-CN"] : [];
  }

  function replies_(n) {
    return t(`${n} ${n === 1 ? "reply" : "replies"}`, `${n} 条回复`);
  }

  function nameOf(userId) {
    if (userId === botId()) return state.info.bot.name;
    const p = state.byUser[userId];
    return p ? p.name : userId;
  }

  function initials(name) {
    const n = String(name || "?").trim();
    if (/^[\x00-\x7f]/.test(n)) {
      const parts = n.split(/\s+/).filter(Boolean);
      return ((parts[0] || "?")[0] + (parts[1] ? parts[1][0] : "")).toUpperCase();
    }
    return Array.from(n)[0];
  }

  function colorFor(userId) {
    let hash = 0;
    for (const ch of String(userId)) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
    return PALETTE[hash % PALETTE.length];
  }

  function avatar(userId, size) {
    const cls = "avatar" + (size ? " " + size : "");
    if (userId === botId()) return h("span", { class: cls + " bot", title: nameOf(userId), "aria-hidden": "true" });
    const el = h("span", { class: cls, title: nameOf(userId), "aria-hidden": "true" }, initials(nameOf(userId)));
    el.style.background = colorFor(userId);
    return el;
  }

  function isBotMessage(m) {
    return Boolean(m.bot_id) || m.user === botId();
  }

  function authorKey(m) {
    return isBotMessage(m) ? botId() : m.user;
  }

  // ---- time ----------------------------------------------------------------------------------

  function tsParts(ts) {
    const [sec, frac] = String(ts).split(".");
    return [parseInt(sec, 10) || 0, parseInt(frac || "0", 10) || 0];
  }

  function tsCmp(a, b) {
    const [as, af] = tsParts(a);
    const [bs, bf] = tsParts(b);
    return as - bs || af - bf;
  }

  function tsDate(ts) {
    return new Date(tsParts(ts)[0] * 1000);
  }

  // Times are shown in the person's own time zone, as their Slack client would.
  function zone() {
    return NET.zoneOf(me());
  }

  function shortTime(ts) {
    return tsDate(ts).toLocaleTimeString(locales(), { hour: "2-digit", minute: "2-digit", timeZone: zone() });
  }

  function fullTime(ts) {
    return tsDate(ts).toLocaleString(locales(), { dateStyle: "full", timeStyle: "short", timeZone: zone() });
  }

  function isoDay(d) {
    return NET.isoDayIn(d, zone());
  }

  function dayLabel(ts) {
    // "Today" is the product's today (APPROVALS_NOW can fix it) where this person is.
    const day = isoDay(tsDate(ts));
    const today = NET.todayIn(state.info, zone());
    if (day === today) return t("Today", "今天");
    if (day === NET.dayBefore(today)) return t("Yesterday", "昨天");
    return tsDate(ts).toLocaleDateString(locales(), { weekday: "long", month: "long", day: "numeric", timeZone: zone() });
  }

  // ---- little UI pieces ------------------------------------------------------------------------

  let toastTimer = null;
  function toast(message) {
    const el = $("toast");
    el.textContent = message;
    el.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => (el.hidden = true), 4500);
  }

  function setLive(on) {
    slackLive = on;
    showLive();
  }

  let stale = false;
  /** The sandbox restarted (its token changed): nothing on this page works until a reload. */
  function setStale() {
    stale = true;
    showLive();
  }

  /** The live dot follows the feed of the platform on show. */
  let downTimer = null;
  function showLive() {
    const on = !stale && (state.platform === "feishu" && feishu ? feishu.isLive() : slackLive);
    const el = $("live");
    el.textContent = on ? t("live", "已连接") : stale ? t("restarted", "已重启") : t("reconnecting…", "正在重新连接…");
    el.classList.toggle("on", on);
    // The banner says why nothing moves: after a restart (reload), or when the sandbox is
    // unreachable for more than a moment (a blip while it reconnects is not worth a banner).
    clearTimeout(downTimer);
    if (on) showBanner(null);
    else if (stale) showBanner("stale");
    else downTimer = setTimeout(() => showBanner("reconnecting"), 1500);
  }

  function showBanner(kind) {
    const el = $("conn-banner");
    if (!kind) {
      el.hidden = true;
      el.replaceChildren();
      return;
    }
    el.className = "conn-banner " + kind;
    el.replaceChildren(h("span", {}, NET.say(kind, zh())));
    if (kind === "stale") el.appendChild(h("button", { type: "button", class: "conn-reload", onclick: () => location.reload() }, t("Reload", "刷新")));
    el.hidden = false;
  }

  function confirmDialog(confirm) {
    return new Promise((resolve) => {
      const overlay = $("dialog-overlay");
      const done = (value) => {
        overlay.hidden = true;
        overlay.replaceChildren();
        document.removeEventListener("keydown", onKey, true);
        resolve(value);
      };
      const onKey = (e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          e.stopPropagation();
          done(false);
        }
      };
      const yes = h(
        "button",
        { type: "button", class: "btn " + (confirm.style === "danger" ? "danger" : "primary"), onclick: () => done(true) },
        BK.plainText(confirm.confirm) || t("Yes", "是")
      );
      const box = h(
        "div",
        { class: "dialog", role: "alertdialog", "aria-modal": "true", "aria-labelledby": "dialog-title" },
        h("h2", { id: "dialog-title" }, BK.plainText(confirm.title) || t("Are you sure?", "确定吗？")),
        h("div", { class: "dialog-text" }, BK.textObject(confirm.text, renderCtx())),
        h("div", { class: "dialog-foot" }, h("button", { type: "button", class: "btn", onclick: () => done(false) }, BK.plainText(confirm.deny) || t("Cancel", "取消")), yes)
      );
      // A click outside cancels, but not the second click of the double click that opened it.
      const opened = Date.now();
      overlay.onclick = (e) => {
        if (e.target === overlay && Date.now() - opened > 500) done(false);
      };
      overlay.replaceChildren(box);
      overlay.hidden = false;
      document.addEventListener("keydown", onKey, true);
      yes.focus();
    });
  }

  function renderCtx(where) {
    return {
      userName: nameOf,
      zh: zh(),
      onAction: (element, block, btn) => clickAction(element, block, btn, where || {}),
    };
  }

  async function clickAction(element, block, btn, where) {
    if (element.type !== "button") return;
    if (element.confirm && !(await confirmDialog(element.confirm))) return;
    btn.disabled = true;
    btn.classList.add("busy");
    try {
      await post("/sandbox/click", {
        user: state.user,
        action_id: element.action_id,
        block_id: block.block_id || null,
        value: element.value === undefined ? null : element.value,
        // what the message's (or view's) checkboxes hold, as Slack sends it with the click
        values: BK.checkedState(btn.closest(".blocks")),
        ...where,
      });
    } catch (_) {
      // toast shown by post()
    } finally {
      setTimeout(() => {
        btn.disabled = false;
        btn.classList.remove("busy");
      }, 600);
    }
  }

  // ---- messages ------------------------------------------------------------------------------

  function statusFor(threadTs) {
    const s = ((state.snap && state.snap.statuses) || []).find((x) => x.thread_ts === threadTs);
    return s && s.status ? s : null;
  }

  function messageContent(m, where) {
    const ctx = renderCtx(where);
    const wrap = h("div", { class: "msg-content" });
    if (m.subtype === "tombstone") {
      wrap.appendChild(h("div", { class: "tombstone" }, t("This message was deleted.", "此消息已被删除。")));
      return wrap;
    }
    if (m.stream) wrap.appendChild(BK.stream(m.stream, ctx));
    if (m.blocks && m.blocks.length) wrap.appendChild(BK.blocks(m.blocks, ctx));
    else if (!m.stream) wrap.appendChild(BK.mrkdwn(m.text || "", ctx));
    return wrap;
  }

  function thinkingLine(status) {
    return h(
      "div",
      { class: "thinking" },
      h("span", { class: "dots", "aria-hidden": "true" }, h("i"), h("i"), h("i")),
      h("b", {}, state.info.bot.name),
      " ",
      status.status
    );
  }

  function threadSummary(m) {
    const users = (m.reply_users || []).slice(0, 5);
    const n = m.reply_count || 0;
    return h(
      "button",
      { type: "button", class: "thread-summary", onclick: () => openThread(m.ts), dataset: { threadTs: m.ts } },
      users.map((u) => avatar(u, "tiny")),
      h("span", { class: "replies-link" }, replies_(n)),
      m.latest_reply ? h("span", { class: "last-reply" }, t("Last reply ", "最后回复于 ") + shortTime(m.latest_reply)) : null,
      h("span", { class: "view-thread" }, t("View thread ›", "查看消息列 ›"))
    );
  }

  function messageRow(m, opts) {
    const where = { channel: m.channel || state.snap.channel, ts: m.ts };
    const classes = ["msg"];
    if (opts.grouped) classes.push("grouped");
    if (m.ephemeral) classes.push("ephemeral");
    if (opts.parent) classes.push("parent");
    if (opts.active) classes.push("active-thread");
    const author = authorKey(m);
    const body = h("div", { class: "msg-body" });
    if (!opts.grouped) {
      body.appendChild(
        h(
          "div",
          { class: "msg-meta" },
          h("span", { class: "author" }, nameOf(author)),
          isBotMessage(m) ? h("span", { class: "app-tag" }, "APP") : null,
          h("time", { title: fullTime(m.ts) }, shortTime(m.ts))
        )
      );
    }
    if (m.ephemeral) body.appendChild(h("div", { class: "eph-label" }, t("👁 Only visible to you", "👁 仅对你可见")));
    body.appendChild(messageContent(m, where));
    if (m.ephemeral) {
      body.appendChild(
        h(
          "button",
          {
            type: "button",
            class: "link-btn",
            onclick: () => post("/sandbox/ephemeral/dismiss", { user: state.user, ts: m.ts }).then(scheduleRefresh, () => {}),
          },
          t("Dismiss message", "关闭消息")
        )
      );
    }
    if (!opts.inThread && m.reply_count) body.appendChild(threadSummary(m));
    if (!opts.inThread && opts.status) body.appendChild(thinkingLine(opts.status));
    const gutter = h("div", { class: "gutter" }, opts.grouped ? h("time", { class: "hover-time", title: fullTime(m.ts) }, shortTime(m.ts)) : avatar(author));
    return h("div", { class: classes.join(" "), dataset: { ts: m.ts, user: author, ephemeral: m.ephemeral ? "1" : null } }, gutter, body);
  }

  /** Keep `container`'s children in the order of `items`, rebuilding only what changed. */
  function reconcile(container, items, cache) {
    const seen = new Set();
    let prev = null;
    for (const item of items) {
      let entry = cache.get(item.key);
      if (!entry || entry.sig !== item.sig) {
        const el = item.build();
        if (entry && entry.el.parentNode === container) container.replaceChild(el, entry.el);
        entry = { sig: item.sig, el };
        cache.set(item.key, entry);
      }
      seen.add(item.key);
      const want = prev ? prev.nextSibling : container.firstChild;
      if (want !== entry.el) container.insertBefore(entry.el, want);
      prev = entry.el;
    }
    for (const [key, entry] of cache) {
      if (!seen.has(key)) {
        entry.el.remove();
        cache.delete(key);
      }
    }
  }

  function withGrouping(list) {
    let prev = null;
    return list.map((m) => {
      const grouped =
        prev !== null &&
        !m.ephemeral &&
        !prev.ephemeral &&
        authorKey(prev) === authorKey(m) &&
        tsParts(m.ts)[0] - tsParts(prev.ts)[0] < GROUP_WINDOW_S &&
        isoDay(tsDate(prev.ts)) === isoDay(tsDate(m.ts));
      prev = m;
      return { m, grouped };
    });
  }

  function suggestions() {
    const p = me();
    const zh = p && p.locale === "zh";
    const out = zh
      ? ["明天开始请两天病假", "我还有几天年假？", "/leave"]
      : ["annual leave next Monday to Wednesday", "How many days of annual leave do I have?", "/leave"];
    if (p && p.approver) out.splice(2, 0, zh ? "有哪些待我审批的申请？" : "What is waiting for my approval?");
    return out;
  }

  function intro(empty) {
    const p = me();
    const zh = p && p.locale === "zh";
    const text = zh
      ? ["这是你与 ", h("b", {}, "approvals"), " 私信的开始。用自己的话请假，中文或英文都可以：机器人会准备好申请并给你一张卡片，你点击「提交」之前不会发出任何内容。"]
      : [
          "This is the very beginning of your direct messages with ",
          h("b", {}, "approvals"),
          ". Ask for leave in your own words — in English or 中文. The bot prepares the request and shows you a card; nothing is sent until you click Submit.",
        ];
    return h(
      "div",
      { class: "intro" + (empty ? "" : " compact") },
      h("span", { class: "avatar bot large", "aria-hidden": "true" }),
      h("div", { class: "intro-text" }, h("h1", {}, "approvals"), h("p", {}, ...text)),
      empty
        ? h(
            "div",
            { class: "suggestions" },
            suggestions().map((s) => h("button", { type: "button", class: "chip", onclick: () => sendChip(s) }, s))
          )
        : null
    );
  }

  function renderMessages() {
    const list = $("messages");
    const snap = state.snap;
    const channel = snap.channel;
    const merged = [
      ...snap.messages.map((m) => ({ ...m, channel })),
      ...snap.ephemerals.filter((e) => !e.thread_ts),
    ].sort((a, b) => tsCmp(a.ts, b.ts));
    const items = [{ key: "intro", sig: `intro:${merged.length === 0}:${state.user}`, build: () => intro(merged.length === 0) }];
    let lastDay = null;
    for (const { m, grouped } of withGrouping(merged)) {
      const day = isoDay(tsDate(m.ts));
      if (day !== lastDay) {
        lastDay = day;
        const label = dayLabel(m.ts);
        items.push({ key: "day:" + day, sig: label, build: () => h("div", { class: "day-divider" }, h("span", {}, label)) });
      }
      const status = m.reply_count || m.thread_ts ? statusFor(m.ts) : null;
      const active = state.threadTs === m.ts;
      items.push({
        key: (m.ephemeral ? "e:" : "m:") + m.ts,
        sig: JSON.stringify([m, grouped, status && status.status, active, zh()]),
        build: () => messageRow(m, { grouped, status, active }),
      });
    }
    reconcile(list, items, state.msgCache);
  }

  // ---- the thread pane -------------------------------------------------------------------------

  /** Show the thread of `ts` (null: none), alone: what another thread left in the pane goes. */
  function setThread(ts) {
    if (ts === state.threadTs) return;
    state.threadTs = ts;
    state.threadCache.clear();
    $("thread-body").replaceChildren();
    document.body.classList.toggle("thread-open", Boolean(ts));
  }

  function openThread(ts) {
    setThread(ts);
    render(false, true);
    $("thread-input").focus();
  }

  function closeThread() {
    setThread(null);
    render();
  }

  function renderThread() {
    const pane = $("thread");
    if (!state.threadTs || state.tab !== "messages") {
      pane.hidden = true;
      return;
    }
    pane.hidden = false;
    const body = $("thread-body");
    const snap = state.snap;
    const channel = snap.channel;
    const parent = snap.messages.find((m) => m.ts === state.threadTs);
    const items = [];
    if (!parent) {
      items.push({ key: "loading", sig: "loading" + zh(), build: () => h("div", { class: "empty" }, t("Loading the thread…", "正在加载消息列…")) });
    } else {
      items.push({ key: "parent", sig: JSON.stringify([parent, zh()]), build: () => messageRow({ ...parent, channel }, { inThread: true, parent: true }) });
      const replies = [
        ...(parent.replies || []).map((m) => ({ ...m, channel })),
        ...snap.ephemerals.filter((e) => e.thread_ts === state.threadTs),
      ].sort((a, b) => tsCmp(a.ts, b.ts));
      const n = (parent.replies || []).length;
      items.push({
        key: "count",
        sig: String(n) + zh(),
        build: () => h("div", { class: "reply-count" }, h("span", {}, n ? replies_(n) : t("No replies yet", "暂无回复"))),
      });
      for (const { m, grouped } of withGrouping(replies)) {
        items.push({
          key: (m.ephemeral ? "e:" : "m:") + m.ts,
          sig: JSON.stringify([m, grouped, zh()]),
          build: () => messageRow(m, { grouped, inThread: true }),
        });
      }
      const status = statusFor(state.threadTs);
      if (status) items.push({ key: "status", sig: status.status, build: () => h("div", { class: "thread-status" }, avatar(botId(), "small"), thinkingLine(status)) });
    }
    reconcile(body, items, state.threadCache);
  }

  function nearBottom(el) {
    return el.scrollHeight - el.scrollTop - el.clientHeight < 120;
  }

  // ---- modals ----------------------------------------------------------------------------------

  function optionPayload(option) {
    const out = { text: option.text, value: option.value };
    if (option.description) out.description = option.description;
    return out;
  }

  function inputBlock(block, inputs) {
    const el = block.element || {};
    const id = "in-" + (block.block_id || Math.random().toString(36).slice(2));
    const type = el.type;
    let control;
    let read;
    let empty;
    if (type === "static_select" || type === "users_select") {
      let options = [];
      if (type === "users_select") {
        options = state.people.map((p) => ({ text: { type: "plain_text", text: p.name }, value: p.user_id }));
      } else {
        options = el.options || (el.option_groups || []).flatMap((g) => g.options || []);
      }
      const initial = type === "users_select" ? el.initial_user : el.initial_option && el.initial_option.value;
      control = h(
        "select",
        { id, name: block.block_id },
        h("option", { value: "", disabled: true, selected: !initial }, BK.plainText(el.placeholder) || t("Select an option", "选择一个选项")),
        options.map((o) => h("option", { value: o.value, selected: o.value === initial }, BK.plainText(o.text)))
      );
      read = () => {
        const option = options.find((o) => o.value === control.value);
        if (type === "users_select") return { type, selected_user: option ? option.value : null };
        return { type, selected_option: option ? optionPayload(option) : null };
      };
      empty = () => !control.value;
    } else if (type === "datepicker" || type === "timepicker") {
      const isDate = type === "datepicker";
      control = h("input", { id, type: isDate ? "date" : "time", value: (isDate ? el.initial_date : el.initial_time) || "", name: block.block_id });
      read = () => (isDate ? { type, selected_date: control.value || null } : { type, selected_time: control.value || null });
      empty = () => !control.value;
    } else if (type === "checkboxes" || type === "radio_buttons") {
      const multi = type === "checkboxes";
      const initial = new Set(multi ? (el.initial_options || []).map((o) => o.value) : el.initial_option ? [el.initial_option.value] : []);
      const boxes = (el.options || []).map((o) => {
        const box = h("input", { type: multi ? "checkbox" : "radio", name: id, value: o.value, checked: initial.has(o.value) });
        return {
          o,
          box,
          label: h(
            "label",
            { class: "choice" },
            box,
            h("span", {}, BK.textObject(o.text, renderCtx()), o.description ? h("small", {}, BK.plainText(o.description)) : null)
          ),
        };
      });
      control = h("div", { id, class: "choices", role: multi ? "group" : "radiogroup" }, boxes.map((b) => b.label));
      const chosen = () => boxes.filter((b) => b.box.checked).map((b) => optionPayload(b.o));
      read = () => (multi ? { type, selected_options: chosen() } : { type, selected_option: chosen()[0] || null });
      empty = () => chosen().length === 0;
    } else if (["plain_text_input", "number_input", "email_text_input", "url_text_input"].includes(type)) {
      const attrs = { id, name: block.block_id, placeholder: BK.plainText(el.placeholder) || null };
      if (el.max_length) attrs.maxlength = el.max_length;
      if (type === "plain_text_input" && el.multiline) control = h("textarea", { ...attrs, rows: 4 });
      else control = h("input", { ...attrs, type: { number_input: "number", email_text_input: "email", url_text_input: "url" }[type] || "text" });
      control.value = el.initial_value || "";
      read = () => ({ type, value: control.value === "" ? null : control.value });
      empty = () => !control.value.trim();
    } else {
      control = h("div", { class: "bk-unsupported" }, t(`[${type} is not supported in the sandbox]`, `[沙盒不支持 ${type}]`));
      read = () => ({ type });
      empty = () => false;
    }
    const error = h("div", { class: "bk-error", role: "alert", hidden: true });
    const wrap = h(
      "div",
      { class: "bk-input" },
      h("label", { class: "bk-label", for: id }, BK.plainText(block.label), block.optional ? h("span", { class: "optional" }, t(" (optional)", "（可选）")) : null),
      control,
      block.hint ? h("div", { class: "bk-hint" }, BK.plainText(block.hint)) : null,
      error
    );
    inputs[block.block_id] = {
      action_id: el.action_id,
      read,
      empty,
      optional: Boolean(block.optional),
      control,
      setError(message) {
        wrap.classList.toggle("has-error", Boolean(message));
        error.hidden = !message;
        error.textContent = message || "";
      },
    };
    return wrap;
  }

  function buildModal(view) {
    const inputs = {};
    const close = () => post("/sandbox/views/close", { user: state.user, view_id: view.id }).then(scheduleRefresh, () => {});
    const ctx = { ...renderCtx({ view_id: view.id }), input: (block) => inputBlock(block, inputs) };
    const banner = h("div", { class: "modal-banner", role: "alert", hidden: true });
    const submit = view.submit ? h("button", { type: "submit", class: "btn primary" }, BK.plainText(view.submit)) : null;
    const form = h(
      "form",
      { class: "modal", role: "dialog", "aria-modal": "true", "aria-labelledby": "modal-title", dataset: { viewId: view.id, callbackId: view.callback_id || "" }, novalidate: true },
      h(
        "div",
        { class: "modal-head" },
        h("span", { class: "avatar bot small", "aria-hidden": "true" }),
        h("h2", { id: "modal-title" }, BK.plainText(view.title)),
        h("button", { type: "button", class: "icon-btn", title: t("Close", "关闭"), "aria-label": t("Close", "关闭"), onclick: close }, "✕")
      ),
      h("div", { class: "modal-body" }, banner, BK.blocks(view.blocks, ctx)),
      h("div", { class: "modal-foot" }, h("button", { type: "button", class: "btn", onclick: close }, BK.plainText(view.close) || t("Cancel", "取消")), submit)
    );
    form.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        e.preventDefault();
        close();
      }
    });
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      banner.hidden = true;
      const values = {};
      let missing = false;
      for (const [blockId, input] of Object.entries(inputs)) {
        input.setError(null);
        if (!input.optional && input.empty()) {
          input.setError(t("Please complete this required field.", "请填写此必填字段。"));
          missing = true;
        }
        values[blockId] = { [input.action_id]: input.read() };
      }
      if (missing) return;
      if (submit) submit.disabled = true;
      try {
        const res = await NET.post("/sandbox/views/submit", { user: state.user, view_id: view.id, values });
        if (res && res.errors) {
          for (const [blockId, message] of Object.entries(res.errors)) {
            if (inputs[blockId]) inputs[blockId].setError(message);
            else {
              banner.hidden = false;
              banner.textContent = message;
            }
          }
        } else if (res && !res.ok) {
          banner.hidden = false;
          banner.textContent = res.error || t("We had some trouble connecting. Try again?", "连接出现问题，要重试吗？");
        }
        scheduleRefresh();
      } catch (err) {
        banner.hidden = false; // said on the form, which stays open with what was typed
        banner.textContent = NET.explain(err, zh());
      } finally {
        if (submit) submit.disabled = false;
      }
    });
    return form;
  }

  function renderModal() {
    const views = state.snap.views || [];
    const top = views[views.length - 1];
    const key = top ? `${top.id}:${top.hash}` : null;
    if (key === state.modalKey) return;
    state.modalKey = key;
    const overlay = $("modal-overlay");
    if (!top) {
      overlay.hidden = true;
      overlay.replaceChildren();
      return;
    }
    const form = buildModal(top);
    overlay.replaceChildren(form);
    overlay.hidden = false;
    const first = form.querySelector("select, input, textarea");
    if (first) first.focus();
  }

  // ---- the Home tab ------------------------------------------------------------------------------

  function renderHome() {
    const home = state.snap.home;
    const key = home ? `${home.id}:${home.hash}` : "none";
    if (key === state.homeKey) return;
    state.homeKey = key;
    const pane = $("home");
    if (!home) {
      pane.replaceChildren(h("div", { class: "empty" }, t("Opening the Home tab…", "正在打开主页…")));
      return;
    }
    pane.replaceChildren(h("div", { class: "home-view", dataset: { viewId: home.id } }, BK.blocks(home.blocks, renderCtx({ view_id: home.id }))));
  }

  function setTab(tab) {
    state.tab = tab;
    for (const el of document.querySelectorAll(".tab")) el.classList.toggle("active", el.dataset.tab === tab);
    $("messages-pane").hidden = tab !== "messages";
    $("home-pane").hidden = tab !== "home";
    if (tab === "home") post("/sandbox/home", { user: state.user }).catch(() => {});
    if (state.snap) render(tab === "messages");
  }

  // ---- sidebar -----------------------------------------------------------------------------------

  function renderPeople() {
    const teams = new Map();
    for (const p of state.people) {
      if (!teams.has(p.team)) teams.set(p.team, []);
      teams.get(p.team).push(p);
    }
    const nodes = [];
    for (const people of teams.values()) {
      nodes.push(h("div", { class: "team-heading" }, teamOf(people[0])));
      for (const p of people) {
        const classes = ["person"];
        if (p.user_id === state.user) classes.push("active");
        if (state.unread.has(p.user_id)) classes.push("unread");
        nodes.push(
          h(
            "button",
            {
              type: "button",
              role: "listitem",
              class: classes.join(" "),
              dataset: { user: p.user_id },
              title: `${p.name} · ${titleOf(p)}${p.manager ? t(" · reports to ", " · 汇报给 ") + p.manager : ""}`,
              onclick: () => switchUser(p.user_id),
            },
            avatar(p.user_id, "small"),
            h("span", { class: "person-text" }, h("span", { class: "person-name" }, p.name), h("span", { class: "person-title" }, titleOf(p))),
            p.pending ? h("span", { class: "badge", title: t(`${p.pending} waiting for approval`, `${p.pending} 条待审批`) }, String(p.pending)) : null
          )
        );
      }
    }
    $("people").replaceChildren(...nodes);
    if (feishu) feishu.renderPeople();
    const p = me();
    $("me").replaceChildren(
      ...(p
        ? [
            avatar(p.user_id),
            h(
              "div",
              { class: "me-text" },
              h("div", { class: "me-label" }, t("You are", "你是")),
              h("div", { class: "me-name" }, p.name),
              h("div", { class: "me-title" }, `${titleOf(p)} · ${teamOf(p)}`)
            ),
          ]
        : [])
    );
  }

  async function loadPeople() {
    try {
      state.people = await getJSON("/sandbox/people");
      state.byUser = Object.fromEntries(state.people.map((p) => [p.user_id, p]));
      renderPeople();
    } catch (e) {
      if (e.kind === "stale") setStale();
      else if (e.kind !== "offline") toast(NET.explain(e, zh())); // offline: the banner says it
    }
  }

  let peopleTimer = null;
  function schedulePeople() {
    if (peopleTimer) return;
    peopleTimer = setTimeout(() => {
      peopleTimer = null;
      loadPeople();
    }, 250);
  }

  // ---- rendering and refreshing --------------------------------------------------------------------

  /** Draw the snapshot. Each pane that was at its end (or is told to) stays at its end; the
   * scrolling happens after both panes are drawn, since opening the thread narrows the channel
   * and its messages grow taller (the sent message would end up below the fold). */
  function render(forceBottom, threadBottom) {
    if (!state.snap) return;
    const list = $("messages");
    const body = $("thread-body");
    const followList = forceBottom || nearBottom(list);
    const followThread = forceBottom || threadBottom || $("thread").hidden || nearBottom(body);
    renderChrome();
    renderMessages();
    renderThread();
    renderModal();
    renderHome();
    if (followList) list.scrollTop = list.scrollHeight;
    if (followThread && !$("thread").hidden) body.scrollTop = body.scrollHeight;
  }

  let refreshing = false;
  let refreshAgain = false;
  let refreshTimer = null;
  let wantBottom = false;

  async function refresh() {
    if (refreshing) {
      refreshAgain = true;
      return;
    }
    refreshing = true;
    try {
      do {
        refreshAgain = false;
        const user = state.user;
        if (!user) break;
        const snap = await getJSON("/sandbox/snapshot?user=" + encodeURIComponent(user));
        if (user !== state.user) {
          refreshAgain = true;
          continue;
        }
        state.snap = snap;
        const bottom = wantBottom;
        wantBottom = false;
        render(bottom, bottom);
      } while (refreshAgain);
    } catch (e) {
      if (e.kind === "stale") setStale();
      else if (e.kind !== "offline") toast(NET.explain(e, zh())); // offline: the banner says it
    } finally {
      refreshing = false;
    }
  }

  function scheduleRefresh() {
    if (refreshTimer) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      refresh();
    }, 25);
  }

  /** On a narrow screen the people list is a drawer over the chat (☰ opens it). */
  function setDrawer(open) {
    document.body.classList.toggle("people-open", open);
    for (const id of ["menu-btn", "lk-menu-btn"]) if ($(id)) $(id).setAttribute("aria-expanded", String(open));
  }

  async function switchUser(userId) {
    if (!state.byUser[userId]) return;
    setDrawer(false);
    const changed = userId !== state.user;
    state.user = userId;
    state.unread.delete(userId);
    if (changed) {
      setThread(null);
      state.modalKey = null;
      state.homeKey = null;
      state.msgCache.clear();
      state.threadCache.clear();
      $("messages").replaceChildren();
      $("home").replaceChildren();
      $("modal-overlay").hidden = true;
    }
    history.replaceState(null, "", "#" + hashFor(userId));
    renderChrome();
    renderPeople();
    if (state.platform === "feishu" && feishu) feishu.userChanged();
    wantBottom = true;
    await refresh();
    if (state.tab === "home") post("/sandbox/home", { user: userId }).catch(() => {});
    if (state.platform === "slack") $("composer-input").focus();
  }

  // ---- Slack | 飞书 -----------------------------------------------------------------------------------

  function hashFor(userId) {
    return (state.platform === "feishu" ? "feishu/" : "") + userId;
  }

  function parseHash() {
    const raw = decodeURIComponent(location.hash.slice(1));
    const onFeishu = raw.startsWith("feishu/");
    return { platform: onFeishu ? "feishu" : "slack", user: onFeishu ? raw.slice(7) : raw };
  }

  function setPlatform(platform) {
    if (platform === "feishu" && !feishu) platform = "slack";
    state.platform = platform;
    const onFeishu = platform === "feishu";
    for (const el of document.querySelectorAll(".platform")) {
      const active = el.dataset.platform === platform;
      el.classList.toggle("active", active);
      el.setAttribute("aria-selected", String(active));
    }
    document.body.classList.toggle("platform-feishu", onFeishu);
    $("slack-workspace").hidden = onFeishu;
    $("feishu").hidden = !onFeishu;
    renderChrome();
    if (state.user) history.replaceState(null, "", "#" + hashFor(state.user));
    if (onFeishu) feishu.show();
    else {
      if (feishu) feishu.hide();
      render(true);
      $("composer-input").focus();
    }
    showLive();
  }

  // ---- composing -------------------------------------------------------------------------------------

  /** Send a message as the person; null when it went, else the sentence saying why not. */
  async function send(text, threadTs) {
    const clean = String(text || "").trim();
    if (!clean || !state.user) return null;
    const body = { user: state.user, text: clean, thread_ts: threadTs || null };
    const { res, error } = await NET.sendMessage("/sandbox/message", body, zh(), setStale);
    if (!res) return error;
    if (!threadTs && res.ts && !clean.startsWith("/")) setThread(res.ts); // watch the agent work in it
    wantBottom = true;
    scheduleRefresh();
    return error;
  }

  /** A suggestion chip sends its text; a failure is a toast (there is no composer to keep it). */
  async function sendChip(text) {
    const error = await send(text, null);
    if (error) toast(error);
  }

  function wireComposer(formId, inputId, threadOf) {
    const changed = inputId === "composer-input" ? updateSlashHint : null;
    NET.composer($(formId), $(inputId), (text) => send(text, threadOf()), { changed });
  }

  function updateSlashHint() {
    const value = $("composer-input").value;
    const hint = $("slash-hint");
    if (/^\/\S*$/.test(value) && "/leave".startsWith(value)) {
      hint.replaceChildren(
        h(
          "button",
          {
            type: "button",
            class: "slash-item",
            onclick: () => {
              $("composer-input").value = "/leave";
              hint.hidden = true;
              $("composer-input").focus();
            },
          },
          h("b", {}, "/leave"),
          h("span", {}, t(" [what you need]", " [你的需求]")),
          h("small", {}, t("Ask for leave — with no text it opens the form · approvals", "请假：不带文字时打开表单 · approvals"))
        )
      );
      hint.hidden = false;
    } else {
      hint.hidden = true;
    }
  }

  // ---- live updates -----------------------------------------------------------------------------------

  function connect() {
    NET.events("/sandbox/events", {
      hello: () => {
        setLive(true);
        scheduleRefresh();
        schedulePeople();
      },
      message: onChange,
      down: () => setLive(false),
      stale: () => setStale(),
    });
  }

  function onChange(record) {
    const kind = record.kind || "";
    if (kind === "overflow") {
      scheduleRefresh();
      schedulePeople();
      return;
    }
    if (!record.user || record.user === state.user) scheduleRefresh();
    else if ((kind === "message.posted" || kind === "stream.started") && !state.unread.has(record.user)) {
      state.unread.add(record.user);
      renderPeople();
    }
    if (kind.startsWith("message.") || kind === "stream.stopped" || kind === "home.published") schedulePeople();
  }

  // ---- start ------------------------------------------------------------------------------------------

  /** The page's own words (not the bot's), in the viewer's language, for both views' top bar
   * and the Slack view; the Feishu view draws its own. */
  function renderChrome() {
    const info = state.info;
    if (!info) return;
    const onFeishu = state.platform === "feishu";
    document.documentElement.lang = zh() ? "zh-CN" : "en";
    $("ws-name").replaceChildren(h("div", { class: "ws-title" }, info.organisation), h("div", { class: "ws-sub" }, t("Approvals sandbox", "审批沙盒")));
    $("topbar-search").textContent = onFeishu
      ? t("Approvals sandbox — 飞书 · everything runs on this machine", "审批沙盒 — 飞书 · 一切都在本机运行")
      : t("Approvals sandbox — everything runs on this machine", "审批沙盒 — 一切都在本机运行");
    const offline = !info.model.startsWith("LLM ");
    const model = offline ? t("Offline planner", "离线规划器") : info.model.split(" (")[0];
    // The same day and zone as the messages' "Today" divider (the person's own zone).
    const today = new Date(NET.todayIn(info, zone()) + "T12:00:00Z").toLocaleDateString(locales(), { weekday: "short", day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
    $("topbar-right").replaceChildren(
      h("span", { class: "chip-info", title: info.store }, info.persistent ? t("Redis store", "Redis 存储") : t("In-process store · not persisted", "进程内存储 · 不持久化")),
      h("span", { class: "chip-info", title: info.model }, model),
      h("span", { class: "chip-info", title: t("The engine's date (APPROVALS_NOW fixes it)", "引擎的日期（APPROVALS_NOW 可固定）") }, t("Today: ", "今天：") + today)
    );
    $("side-apps").textContent = t("Apps", "应用");
    $("side-people").replaceChildren(t("Switch person", "切换身份"), h("span", { class: "hint" }, t(" — who are you?", " — 你是谁？")));
    $("menu-btn").title = t("People", "切换身份");
    $("menu-btn").setAttribute("aria-label", $("menu-btn").title);
    $("tab-home").textContent = t("Home", "主页");
    $("tab-messages").textContent = t("Messages", "消息");
    $("channel-sub").textContent = t("Your assistant for leave and approvals", "请假与审批助手");
    const placeholder = t("Message approvals", "发送消息给 approvals");
    $("composer-input").placeholder = placeholder;
    $("composer-input").setAttribute("aria-label", placeholder);
    $("composer-help").replaceChildren(
      ...(zh()
        ? [h("b", {}, "Enter"), " 发送 · ", h("b", {}, "Shift+Enter"), " 换行 · ", h("b", {}, "/leave"), " 打开请假表单"]
        : [h("b", {}, "Enter"), " to send · ", h("b", {}, "Shift+Enter"), " new line · ", h("b", {}, "/leave"), " opens the leave form"])
    );
    $("thread-title").textContent = t("Thread", "消息列");
    $("thread-close").title = t("Close thread", "关闭消息列");
    $("thread-close").setAttribute("aria-label", $("thread-close").title);
    $("thread-input").placeholder = t("Reply…", "回复…");
    $("thread-input").setAttribute("aria-label", t("Reply in thread", "在消息列中回复"));
    for (const el of document.querySelectorAll("#slack-workspace .send")) {
      el.title = t("Send", "发送");
      el.setAttribute("aria-label", el.title);
    }
    const p = me();
    if (!onFeishu) document.title = p ? `approvals · ${p.name} · sandbox` : "approvals · sandbox";
    showLive();
  }

  async function start() {
    try {
      state.info = await getJSON("/sandbox/info");
    } catch (e) {
      if (e.kind === "stale") setStale();
      else showBanner("reconnecting");
      setTimeout(start, 2000); // the page comes up once the sandbox does
      return;
    }
    renderChrome();
    await loadPeople();
    wireComposer("composer", "composer-input", () => null);
    wireComposer("thread-composer", "thread-input", () => state.threadTs);
    $("thread-close").addEventListener("click", closeThread);
    for (const id of ["menu-btn", "lk-menu-btn"]) $(id).addEventListener("click", () => setDrawer(!document.body.classList.contains("people-open")));
    $("drawer-backdrop").addEventListener("click", () => setDrawer(false));
    for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => setTab(tab.dataset.tab));
    $("app-item").addEventListener("click", () => setTab("messages"));
    if (window.Feishu) {
      feishu = window.Feishu.create({
        info: () => state.info,
        people: () => state.people,
        person: () => me(),
        switchUser: (userId) => switchUser(userId),
        peopleChanged: () => schedulePeople(),
        liveChanged: () => showLive(),
        stale: () => setStale(),
      });
    } else {
      $("platform-feishu").hidden = true;
    }
    for (const el of document.querySelectorAll(".platform")) el.addEventListener("click", () => setPlatform(el.dataset.platform));
    const fromHash = parseHash();
    const first = state.byUser[fromHash.user] ? fromHash.user : state.info.default_user || (state.people[0] && state.people[0].user_id);
    connect();
    if (fromHash.platform === "feishu") setPlatform("feishu");
    if (first) await switchUser(first);
  }

  window.addEventListener("hashchange", () => {
    const { platform, user } = parseHash();
    if (platform !== state.platform) setPlatform(platform);
    if (state.byUser[user] && user !== state.user) switchUser(user);
  });

  start();
})();
