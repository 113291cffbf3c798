/* The sandbox's Feishu (飞书 / Lark) view: the same person's one-to-one chat with the bot.
 *
 * State comes from the Feishu stand-in (GET /sandbox/feishu/snapshot); each change to it (a
 * send, a reply in a thread, a card PATCHed or replaced after a click) arrives as a
 * server-sent event from /sandbox/feishu/events and triggers a fresh snapshot. What the person
 * does goes to /sandbox/feishu/... and from there to the bot, encrypted and signed like Feishu.
 * Interactive cards (JSON 1.0) are drawn here: header templates, div with plain_text/lark_md
 * and fields, hr, note, action rows of buttons with confirm dialogs, forms with inputs.
 *
 * Everything is built with createElement and text nodes: nothing from the bot or from people
 * is parsed as HTML. Links are only made for http(s) URLs.
 */
"use strict";

(function () {
  const { h } = window.BlockKit;
  const $ = (id) => document.getElementById(id);

  const PALETTE = ["#3370ff", "#00b42a", "#ff7d00", "#7f3bf5", "#f54a45", "#14c0ff", "#e6a100", "#2ec7a4", "#d136d1", "#4954e6"];
  const TEMPLATES = ["blue", "wathet", "turquoise", "green", "yellow", "orange", "red", "carmine", "violet", "purple", "indigo", "grey", "default"];
  const BUTTON_TYPES = ["default", "primary", "danger", "text", "primary_filled", "danger_filled", "primary_text", "danger_text", "laser"];
  const FONT_COLORS = ["red", "green", "grey", "gray", "blue", "orange", "yellow", "purple", "carmine", "violet", "indigo", "turquoise", "wathet"];
  const GROUP_WINDOW_MS = 5 * 60 * 1000;

  // ---- text: plain_text and lark_md ---------------------------------------------------------

  const ENTITIES = { "&lt;": "<", "&gt;": ">", "&amp;": "&", "&nbsp;": "\u00a0", "&quot;": '"', "&#39;": "'" };

  /** lark_md's escapes, in one pass (so "&amp;lt;" shows as "&lt;"). */
  function decode(text) {
    return String(text).replace(/&(?:lt|gt|amp|nbsp|quot|#39);/g, (m) => ENTITIES[m]);
  }

  function safeUrl(url) {
    const u = decode(String(url || "").trim());
    return /^https?:\/\//i.test(u) ? u : null;
  }

  const LARK_INLINE = [
    ["at", /<at\s+(?:id|user_id|open_id|email)\s*=\s*["']?([^"'\s>]+)["']?\s*>([^<]*)<\/at>/],
    ["font", /<font\s+color\s*=\s*["']?([a-z-]+)["']?\s*>([^<]*)<\/font>/i],
    ["link", /\[([^\]\n]+)\]\(([^)\s]+)\)/],
    ["bold", /\*\*(?=\S)([^\n]+?)\*\*/],
    ["strike", /~~(?=\S)([^\n]+?)~~/],
    ["italic", /(?<![*A-Za-z0-9])\*(?![\s*])([^*\n]+?)(?<![\s*])\*(?![*A-Za-z0-9])/],
  ];

  /** Feishu's lark_md: **bold**, *italic*, ~~strike~~, [links](url), <at id=…></at>, <font color>. */
  function larkInline(text, parent, ctx) {
    let rest = String(text);
    while (rest) {
      let best = null;
      for (const [kind, re] of LARK_INLINE) {
        const m = re.exec(rest);
        if (m && (!best || m.index < best.m.index)) best = { kind, m };
      }
      if (!best) {
        parent.appendChild(document.createTextNode(decode(rest)));
        break;
      }
      const { kind, m } = best;
      if (m.index > 0) parent.appendChild(document.createTextNode(decode(rest.slice(0, m.index))));
      rest = rest.slice(m.index + m[0].length);
      if (kind === "at") {
        const id = m[1];
        const label = id === "all" ? "所有人" : (ctx && ctx.nameOf && ctx.nameOf(id)) || decode(m[2]) || id;
        parent.appendChild(h("span", { class: "lk-at" }, "@" + label));
      } else if (kind === "font") {
        const color = m[1].toLowerCase();
        const cls = "lk-font" + (FONT_COLORS.includes(color) ? " lk-font-" + color : "");
        larkInline(m[2], parent.appendChild(h("span", { class: cls })), ctx);
      } else if (kind === "link") {
        const href = safeUrl(m[2]);
        if (href) parent.appendChild(h("a", { href, target: "_blank", rel: "noopener noreferrer" }, decode(m[1])));
        else parent.appendChild(document.createTextNode(decode(m[0])));
      } else if (kind === "bold") {
        larkInline(m[1], parent.appendChild(h("b")), ctx);
      } else if (kind === "strike") {
        larkInline(m[1], parent.appendChild(h("s")), ctx);
      } else if (kind === "italic") {
        larkInline(m[1], parent.appendChild(h("i")), ctx);
      }
    }
    return parent;
  }

  function larkMd(text, ctx, cls) {
    const out = h("div", { class: "lk-md" + (cls ? " " + cls : "") });
    String(text || "")
      .split("\n")
      .forEach((line, i) => {
        if (i > 0) out.appendChild(document.createTextNode("\n"));
        larkInline(line, out, ctx);
      });
    return out;
  }

  /** A text object: {tag: "plain_text" | "lark_md", content}, shown as typed or as lark_md. */
  function textObject(obj, ctx, cls) {
    if (!obj) return document.createTextNode("");
    if (typeof obj === "string") return h("div", { class: "lk-plain" + (cls ? " " + cls : "") }, obj);
    const align = ["left", "center", "right"].includes(obj.text_align) ? " lk-align-" + obj.text_align : "";
    const color = FONT_COLORS.includes(obj.text_color) ? " lk-font-" + obj.text_color : "";
    const extra = (cls ? " " + cls : "") + align + color;
    if (obj.tag === "lark_md") return larkMd(obj.content, ctx, extra.trim());
    return h("div", { class: "lk-plain" + extra }, String(obj.content || ""));
  }

  function plainOf(obj) {
    if (!obj) return "";
    if (typeof obj === "string") return obj;
    return String(obj.content || "");
  }

  // ---- cards ------------------------------------------------------------------------------------

  function isObject(x) {
    return x !== null && typeof x === "object" && !Array.isArray(x);
  }

  function cardElements(card) {
    if (card && card.schema === "2.0") return (card.body && card.body.elements) || [];
    return (card && card.elements) || [];
  }

  /** Every button of a card in document order (the server's `card_buttons` walks the same way). */
  function buttonsOf(card) {
    const found = [];
    const walk = (items) => {
      for (const e of Array.isArray(items) ? items : []) {
        if (!isObject(e)) continue;
        if (e.tag === "button") found.push(e);
        if (isObject(e.extra)) walk([e.extra]);
        walk(e.actions);
        walk(e.elements);
        for (const column of e.columns || []) if (isObject(column)) walk(column.elements);
      }
    };
    walk(cardElements(card));
    return found;
  }

  function button(b, ctx) {
    const kind = BUTTON_TYPES.includes(b.type) ? b.type : "default";
    const btn = h(
      "button",
      { type: "button", class: "lk-btn lk-btn-" + kind + (b.width === "fill" ? " lk-btn-fill" : ""), dataset: { name: b.name || null } },
      plainOf(b.text) || "…"
    );
    btn.addEventListener("click", () => ctx.onButton(b, btn));
    return btn;
  }

  function inputField(e) {
    const id = "lk-in-" + Math.random().toString(36).slice(2);
    const attrs = { id, class: "lk-input", placeholder: plainOf(e.placeholder) || null, dataset: { name: e.name || "" } };
    if (e.max_length) attrs.maxlength = e.max_length;
    const multiline = e.input_type === "multiline_text" || (e.rows && e.rows > 1);
    const control = multiline ? h("textarea", { ...attrs, rows: e.rows || 3 }) : h("input", { ...attrs, type: e.input_type === "password" ? "password" : "text" });
    control.value = e.default_value || "";
    const error = h("div", { class: "lk-input-error", role: "alert", hidden: true });
    const wrap = h(
      "div",
      { class: "lk-field-input", dataset: { name: e.name || "" } },
      e.label ? h("label", { class: "lk-input-label", for: id }, e.required ? h("span", { class: "lk-required" }, "* ") : null, plainOf(e.label)) : null,
      control,
      error
    );
    control.addEventListener("input", () => {
      wrap.classList.remove("has-error");
      error.hidden = true;
    });
    wrap.lkInput = {
      name: e.name,
      required: Boolean(e.required),
      control,
      setError(message) {
        wrap.classList.toggle("has-error", Boolean(message));
        error.hidden = !message;
        error.textContent = message || "";
      },
    };
    return wrap;
  }

  // A multi-select in a form, drawn as a list of ticks (Feishu shows a drop-down of the same
  // options); its value goes with the form's submit as the ticked options' values.
  function multiSelect(e) {
    const boxes = (e.options || []).map((o) => h("input", { type: "checkbox", value: (o && o.value) || "" }));
    const error = h("div", { class: "lk-input-error", role: "alert", hidden: true });
    const wrap = h(
      "div",
      { class: "lk-field-input lk-multi", dataset: { name: e.name || "" }, role: "group", "aria-label": plainOf(e.placeholder) || null },
      (e.options || []).map((o, i) => h("label", { class: "lk-check" }, boxes[i], h("span", {}, plainOf(o && o.text)))),
      error
    );
    wrap.lkInput = {
      name: e.name,
      required: Boolean(e.required),
      read: () => boxes.filter((b) => b.checked).map((b) => b.value),
      reset() {
        for (const b of boxes) b.checked = false;
      },
      setError(message) {
        wrap.classList.toggle("has-error", Boolean(message));
        error.hidden = !message;
        error.textContent = message || "";
      },
    };
    return wrap;
  }

  function elementNode(e, ctx) {
    if (!isObject(e)) return null;
    switch (e.tag) {
      case "div": {
        const main = h("div", { class: "lk-div-main" });
        if (e.text) main.appendChild(textObject(e.text, ctx));
        if (Array.isArray(e.fields) && e.fields.length) {
          main.appendChild(
            h(
              "div",
              { class: "lk-fields" },
              e.fields.map((f) => h("div", { class: "lk-field" + (f && f.is_short ? " short" : "") }, textObject(f && f.text, ctx)))
            )
          );
        }
        const out = h("div", { class: "lk-div" }, main);
        if (isObject(e.extra)) out.appendChild(h("div", { class: "lk-extra" }, elementNode(e.extra, ctx)));
        return out;
      }
      case "markdown":
        return larkMd(e.content, ctx, "lk-markdown");
      case "hr":
        return h("hr", { class: "lk-hr" });
      case "note":
        return h(
          "div",
          { class: "lk-note" },
          (e.elements || []).map((x) =>
            isObject(x) && x.tag === "img"
              ? h("span", { class: "lk-note-img", title: plainOf(x.alt) }, "🖼")
              : h("span", { class: "lk-note-item" }, textObject(x, ctx))
          )
        );
      case "action":
        return h(
          "div",
          { class: "lk-action lk-layout-" + (["bisected", "trisected", "flow"].includes(e.layout) ? e.layout : "default") },
          (e.actions || []).map((x) => elementNode(x, ctx))
        );
      case "button":
        return button(e, ctx);
      case "img":
        return h("div", { class: "lk-img" }, "🖼 ", plainOf(e.alt) || "image");
      case "column_set":
        return h(
          "div",
          { class: "lk-columns" },
          (e.columns || []).map((c) => {
            const col = h("div", { class: "lk-column" }, ((c && c.elements) || []).map((x) => elementNode(x, ctx)));
            col.style.flex = String((c && c.weight) || 1);
            return col;
          })
        );
      case "form":
        return h("form", { class: "lk-form", dataset: { name: e.name || "" }, novalidate: true, onsubmit: (ev) => ev.preventDefault() }, (e.elements || []).map((x) => elementNode(x, ctx)));
      case "input":
        return inputField(e);
      case "multi_select_static":
        return multiSelect(e);
      default:
        return h("div", { class: "lk-unsupported" }, `[${e.tag || "?"}]`);
    }
  }

  /** An interactive card as Feishu draws it: header in its template colour, then the elements. */
  function renderCard(card, ctx) {
    const config = card.config || {};
    const out = h("div", { class: "lk-card" + (config.wide_screen_mode === false ? "" : " wide") });
    const header = card.header;
    if (isObject(header) && header.title) {
      const template = TEMPLATES.includes(header.template) ? header.template : "default";
      out.appendChild(
        h(
          "div",
          { class: "lk-card-header lk-t-" + template },
          h("div", { class: "lk-card-title" }, plainOf(header.title)),
          header.subtitle ? h("div", { class: "lk-card-subtitle" }, plainOf(header.subtitle)) : null
        )
      );
    }
    out.appendChild(h("div", { class: "lk-card-body" }, cardElements(card).map((e) => elementNode(e, ctx))));
    return out;
  }

  // ---- the view ---------------------------------------------------------------------------------

  function create(hooks) {
    const st = {
      active: false,
      openId: null,
      snap: null,
      threadRoot: null,
      msgCache: new Map(),
      threadCache: new Map(),
      unread: new Set(),
      live: false,
    };

    const person = () => hooks.person();
    const zh = () => {
      const p = person();
      return !p || p.locale === "zh";
    };
    const t = (en, cn) => (zh() ? cn : en);
    const botName = () => (hooks.info() && hooks.info().feishu && hooks.info().feishu.bot_name) || "approvals";

    function byOpenId(openId) {
      return hooks.people().find((p) => p.feishu_open_id === openId) || null;
    }

    function nameOf(openId) {
      if (openId === "bot") return botName();
      const p = byOpenId(openId);
      return p ? p.name : openId;
    }

    function initials(name) {
      const n = String(name || "?").trim();
      if (/^[\x00-\x7f]/.test(n)) {
        const parts = n.split(/\s+/).filter(Boolean);
        return ((parts[0] || "?")[0] + (parts[1] ? parts[1][0] : "")).toUpperCase();
      }
      return Array.from(n).slice(-2).join("");
    }

    function colorFor(key) {
      let hash = 0;
      for (const ch of String(key)) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
      return PALETTE[hash % PALETTE.length];
    }

    function avatar(openId, size) {
      const cls = "lk-avatar" + (size ? " " + size : "");
      if (openId === "bot") return h("span", { class: cls + " bot", title: botName(), "aria-hidden": "true" });
      const el = h("span", { class: cls, title: nameOf(openId), "aria-hidden": "true" }, initials(nameOf(openId)));
      el.style.background = colorFor(openId);
      return el;
    }

    // ---- server ----

    const NET = window.SandboxCommon;
    const getJSON = NET.getJSON;

    /** POST to the sandbox; a failure is shown (in the viewer's language) and thrown again. */
    async function post(url, body) {
      let data;
      try {
        data = await NET.post(url, body);
      } catch (err) {
        toast({ type: "error", content: NET.explain(err, zh()) });
        throw err;
      }
      if (data && data.status && data.status !== 200) toast({ type: "error", content: NET.say("bot", zh(), { status: data.status }) });
      return data;
    }

    // ---- toasts and dialogs ----

    let toastTimer = null;
    function toast(tt) {
      const el = $("lk-toast");
      const kind = ["success", "error", "info", "warning"].includes(tt && tt.type) ? tt.type : "info";
      const icon = { success: "✓", error: "✕", info: "i", warning: "!" }[kind];
      el.className = "lk-toast lk-toast-" + kind;
      el.replaceChildren(h("span", { class: "lk-toast-icon", "aria-hidden": "true" }, icon), h("span", { class: "lk-toast-text" }, String((tt && tt.content) || "")));
      el.hidden = false;
      clearTimeout(toastTimer);
      toastTimer = setTimeout(() => (el.hidden = true), 3000);
    }

    /** A button's confirm: {title, text}, with 取消 / 确定, as the Feishu client asks. */
    function confirmDialog(confirm) {
      return new Promise((resolve) => {
        const overlay = $("lk-dialog-overlay");
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
        const ok = h("button", { type: "button", class: "lk-btn lk-btn-primary_filled lk-dialog-ok", onclick: () => done(true) }, t("Confirm", "确定"));
        const box = h(
          "div",
          { class: "lk-dialog", role: "alertdialog", "aria-modal": "true", "aria-labelledby": "lk-dialog-title" },
          h("h2", { id: "lk-dialog-title" }, plainOf(confirm.title) || t("Are you sure?", "确认操作？")),
          h("div", { class: "lk-dialog-text" }, plainOf(confirm.text)),
          h("div", { class: "lk-dialog-foot" }, h("button", { type: "button", class: "lk-btn lk-btn-default", onclick: () => done(false) }, t("Cancel", "取消")), ok)
        );
        // A click outside cancels, but not the second click of the double click that opened it.
        const opened = Date.now();
        overlay.onclick = (e) => {
          if (e.target === overlay && Date.now() - opened > 500) done(false);
        };
        overlay.replaceChildren(box);
        overlay.hidden = false;
        document.addEventListener("keydown", onKey, true);
        ok.focus();
      });
    }

    // ---- clicks ----

    function cardCtx(message) {
      const buttons = buttonsOf(message.content);
      return {
        nameOf,
        onButton: (b, btn) => clickButton(message, buttons.indexOf(b), b, btn),
      };
    }

    async function clickButton(message, index, b, btn) {
      const url = safeUrl(b.url || (isObject(b.multi_url) ? b.multi_url.url : ""));
      if (url && !isObject(b.value)) {
        window.open(url, "_blank", "noopener");
        return;
      }
      const form = btn.closest("form.lk-form");
      if (b.action_type === "form_reset" && form) {
        for (const wrap of form.querySelectorAll(".lk-field-input")) {
          if (wrap.lkInput.reset) wrap.lkInput.reset();
          else wrap.lkInput.control.value = "";
          wrap.lkInput.setError(null);
        }
        return;
      }
      let formValue;
      if (b.action_type === "form_submit" && form) {
        formValue = {};
        let missing = false;
        for (const wrap of form.querySelectorAll(".lk-field-input")) {
          const input = wrap.lkInput;
          input.setError(null);
          const value = input.read ? input.read() : input.control.value;
          if (input.required && !(Array.isArray(value) ? value.length : value.trim())) {
            input.setError(t("Required", "请填写此项"));
            missing = true;
          }
          if (input.name) formValue[input.name] = value;
        }
        if (missing) return;
      }
      if (isObject(b.confirm) && !(await confirmDialog(b.confirm))) return;
      btn.disabled = true;
      btn.classList.add("busy");
      try {
        const res = await post("/sandbox/feishu/click", {
          open_id: st.openId,
          message_id: message.message_id,
          button: index,
          value: isObject(b.value) ? b.value : {},
          form_value: formValue,
        });
        if (res && res.toast) toast(res.toast);
        scheduleRefresh();
      } catch (_) {
        // the toast is shown by post()
      } finally {
        setTimeout(() => {
          btn.disabled = false;
          btn.classList.remove("busy");
        }, 400);
      }
    }

    // ---- messages ----

    // Times are shown in the person's own time zone, as their Feishu client would.
    function timeOf(ms) {
      return new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hour12: false, timeZone: NET.zoneOf(person()) });
    }

    function timeDivider(ms) {
      const info = hooks.info();
      const timeZone = NET.zoneOf(person());
      const d = new Date(ms);
      const sameDay = Boolean(info) && NET.isoDayIn(d, timeZone) === NET.todayIn(info, timeZone);
      const day = sameDay ? "" : d.toLocaleDateString(zh() ? "zh-CN" : [], { month: zh() ? "numeric" : "short", day: "numeric", timeZone }) + " ";
      return h("div", { class: "lk-time-divider" }, day + timeOf(ms));
    }

    function preview(m) {
      if (!m) return "";
      if (m.msg_type === "text") return String((m.content && m.content.text) || "");
      if (m.msg_type === "interactive") {
        const title = m.content && m.content.header && plainOf(m.content.header.title);
        return `[${t("Card", "卡片")}] ${title || ""}`.trim();
      }
      if (m.msg_type === "post") return `[${t("Post", "富文本")}]`;
      return `[${m.msg_type}]`;
    }

    function postContent(content) {
      const body = content && (content.content ? content : Object.values(content)[0]);
      const out = h("div", { class: "lk-post" });
      if (!body) return out;
      if (body.title) out.appendChild(h("div", { class: "lk-post-title" }, String(body.title)));
      for (const line of body.content || []) {
        const p = out.appendChild(h("div", { class: "lk-post-line" }));
        for (const el of line || []) {
          if (el.tag === "a" && safeUrl(el.href)) p.appendChild(h("a", { href: safeUrl(el.href), target: "_blank", rel: "noopener noreferrer" }, String(el.text || el.href)));
          else if (el.tag === "at") p.appendChild(h("span", { class: "lk-at" }, "@" + (el.user_name || nameOf(el.user_id))));
          else p.appendChild(document.createTextNode(String(el.text || "")));
        }
      }
      return out;
    }

    function content(m) {
      if (m.msg_type === "interactive" && isObject(m.content)) return renderCard(m.content, cardCtx(m));
      if (m.msg_type === "text") return h("div", { class: "lk-bubble" }, h("div", { class: "lk-plain" }, String((m.content && m.content.text) || "")));
      if (m.msg_type === "post") return h("div", { class: "lk-bubble" }, postContent(m.content));
      return h("div", { class: "lk-bubble lk-unsupported" }, `[${m.msg_type}]`);
    }

    function threadSummary(m) {
      const replies = m.replies || [];
      const who = [...new Set(replies.map((r) => r.from))].slice(0, 4);
      const last = replies[replies.length - 1];
      const n = replies.length;
      return h(
        "button",
        { type: "button", class: "lk-thread-summary", onclick: () => openThread(m.message_id), dataset: { rootId: m.message_id } },
        who.map((u) => avatar(u, "tiny")),
        h("span", { class: "lk-replies" }, t(`${n} ${n === 1 ? "reply" : "replies"}`, `${n} 条回复`)),
        last ? h("span", { class: "lk-last-reply" }, t("Last reply ", "最新回复 ") + timeOf(last.create_time)) : null,
        h("span", { class: "lk-view-thread" }, t("View thread ›", "查看话题 ›"))
      );
    }

    function messageRow(m, opts) {
      const mine = m.from === st.openId;
      const classes = ["lk-msg"];
      if (mine) classes.push("mine");
      if (opts.grouped) classes.push("grouped");
      if (m.msg_type === "interactive") classes.push("is-card");
      if (opts.active) classes.push("active-thread");
      const main = h("div", { class: "lk-msg-main" });
      if (!opts.grouped) {
        main.appendChild(
          h(
            "div",
            { class: "lk-msg-meta" },
            mine ? null : h("span", { class: "lk-author" }, nameOf(m.from)),
            m.from === "bot" ? h("span", { class: "lk-tag" }, t("Bot", "机器人")) : null,
            h("time", {}, timeOf(m.create_time))
          )
        );
      }
      main.appendChild(content(m));
      if (!opts.inThread && (m.replies || []).length) main.appendChild(threadSummary(m));
      return h(
        "div",
        { class: classes.join(" "), dataset: { messageId: m.message_id, from: m.from } },
        h("div", { class: "lk-gutter" }, opts.grouped ? null : avatar(m.from)),
        main
      );
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

    function rowItems(list, opts, withDividers) {
      const items = [];
      let prev = null;
      for (const m of list) {
        const gap = prev ? m.create_time - prev.create_time : Infinity;
        if (withDividers && gap > GROUP_WINDOW_MS) items.push({ key: "t:" + m.message_id, sig: String(m.create_time) + zh(), build: () => timeDivider(m.create_time) });
        const grouped = prev !== null && prev.from === m.from && gap <= GROUP_WINDOW_MS && !(prev.replies || []).length && !opts.inThread;
        const active = st.threadRoot === m.message_id;
        items.push({ key: "m:" + m.message_id, sig: JSON.stringify([m, grouped, active, zh()]), build: () => messageRow(m, { ...opts, grouped, active }) });
        prev = m;
      }
      return items;
    }

    function suggestions() {
      const p = person();
      const out = zh() ? ["明天开始请两天病假", "我还有几天年假？"] : ["annual leave next Monday to Wednesday", "How many days of annual leave do I have?"];
      if (p && p.approver) out.push(zh() ? "有哪些待我审批的申请？" : "What is waiting for my approval?");
      return out;
    }

    function welcome(empty) {
      return h(
        "div",
        { class: "lk-welcome" + (empty ? "" : " compact") },
        h("span", { class: "lk-avatar bot large", "aria-hidden": "true" }),
        h("div", { class: "lk-welcome-name" }, botName(), h("span", { class: "lk-tag" }, t("Bot", "机器人"))),
        h(
          "p",
          {},
          t(
            "Ask for leave in your own words, in English or 中文. The bot prepares the request and shows you a card; nothing is sent until you click Submit.",
            "用自己的话请假，中文或英文都可以：机器人会准备好申请并给你一张卡片，你点击「提交」之前不会发出任何内容。"
          )
        ),
        empty ? h("div", { class: "lk-suggestions" }, suggestions().map((s) => h("button", { type: "button", class: "lk-chip", onclick: () => sendChip(s) }, s))) : null
      );
    }

    function renderMessages() {
      const list = $("lk-messages");
      const messages = st.snap.messages || [];
      const items = [{ key: "welcome", sig: `w:${messages.length === 0}:${st.openId}:${zh()}`, build: () => welcome(messages.length === 0) }];
      items.push(...rowItems(messages, {}, true));
      reconcile(list, items, st.msgCache);
    }

    /** Show the thread of `rootId` (null: none), alone: what another thread left in the pane goes. */
    function setThread(rootId) {
      if (rootId === st.threadRoot) return;
      st.threadRoot = rootId;
      st.threadCache.clear();
      $("lk-thread-body").replaceChildren();
      document.body.classList.toggle("lk-thread-open", Boolean(rootId));
    }

    function openThread(rootId) {
      setThread(rootId);
      render(false, true);
      $("lk-thread-input").focus();
    }

    function closeThread() {
      setThread(null);
      render();
    }

    function nearBottom(el) {
      return el.scrollHeight - el.scrollTop - el.clientHeight < 120;
    }

    function renderThread() {
      const pane = $("lk-thread");
      if (!st.threadRoot) {
        pane.hidden = true;
        return;
      }
      pane.hidden = false;
      const body = $("lk-thread-body");
      const root = (st.snap.messages || []).find((m) => m.message_id === st.threadRoot);
      const items = [];
      if (!root) {
        items.push({ key: "loading", sig: "loading", build: () => h("div", { class: "lk-empty" }, t("Loading the thread…", "正在加载话题…")) });
      } else {
        items.push({ key: "root", sig: JSON.stringify([{ ...root, replies: [] }, zh()]), build: () => messageRow({ ...root, replies: [] }, { inThread: true }) });
        const n = (root.replies || []).length;
        items.push({
          key: "count",
          sig: String(n) + zh(),
          build: () => h("div", { class: "lk-reply-count" }, h("span", {}, n ? t(`${n} ${n === 1 ? "reply" : "replies"}`, `${n} 条回复`) : t("No replies yet", "暂无回复"))),
        });
        items.push(...rowItems(root.replies || [], { inThread: true }, false));
      }
      reconcile(body, items, st.threadCache);
    }

    function notOnFeishu() {
      const p = person();
      const name = p ? p.name : "";
      return h(
        "div",
        { class: "lk-not-here" },
        h("span", { class: "lk-avatar large", "aria-hidden": "true" }, initials(name)),
        h("h2", {}, t(`${name} is not on Feishu`, `${name} 未开通飞书`)),
        h(
          "p",
          {},
          t(
            "This person has no feishu_open_id in the directory, so the bot reaches them on Slack only. Pick someone else on the left, or switch back to Slack.",
            "目录中此人没有 feishu_open_id，机器人只在 Slack 上联系 TA。请在左侧选择其他人，或切换回 Slack。"
          )
        )
      );
    }

    function renderChrome() {
      const p = person();
      $("lk-rail-me").replaceChildren(p && p.feishu_open_id ? avatar(p.feishu_open_id, "small") : h("span", { class: "lk-avatar small" }, initials(p ? p.name : "?")));
      $("lk-rail-label").textContent = t("Messenger", "消息");
      $("lk-search-label").textContent = t("Search", "搜索");
      $("lk-chats-heading").textContent = t("Messages", "消息");
      $("lk-people-heading").replaceChildren(t("Switch person", "切换身份"), h("span", { class: "hint" }, t(" — who are you?", " — 你是谁？")));
      $("lk-bot-tag").textContent = t("Bot", "机器人");
      $("lk-menu-btn").title = t("People", "切换身份");
      $("lk-menu-btn").setAttribute("aria-label", $("lk-menu-btn").title);
      $("lk-chat-sub").textContent = t("Your assistant for leave and approvals", "请假与审批助手");
      $("lk-input").placeholder = t(`Message ${botName()}`, `发送给 ${botName()}`);
      $("lk-input").setAttribute("aria-label", $("lk-input").placeholder);
      $("lk-thread-input").placeholder = t("Reply in thread", "回复话题");
      $("lk-thread-title").textContent = t("Thread", "话题");
      $("lk-composer-help").textContent = t("Enter to send · Shift+Enter for a new line", "Enter 发送 · Shift+Enter 换行");
      for (const el of document.querySelectorAll("#feishu .lk-send")) el.textContent = t("Send", "发送");
      renderMenu();
      const last = st.snap ? lastMessage(st.snap.messages || []) : null;
      $("lk-conv").replaceChildren(
        h(
          "div",
          { class: "lk-conv active" },
          h("span", { class: "lk-avatar bot", "aria-hidden": "true" }),
          h(
            "div",
            { class: "lk-conv-text" },
            h("div", { class: "lk-conv-top" }, h("span", { class: "lk-conv-name" }, botName()), h("span", { class: "lk-tag" }, t("Bot", "机器人")), last ? h("time", {}, timeOf(last.create_time)) : null),
            h("div", { class: "lk-conv-preview" }, last ? preview(last) : t("Say hello", "打个招呼吧"))
          )
        )
      );
      document.title = p ? `approvals · ${p.name} · 飞书 · sandbox` : "approvals · 飞书 · sandbox";
    }

    function lastMessage(messages) {
      let last = null;
      for (const m of messages) {
        for (const x of [m, ...(m.replies || [])]) if (!last || x.create_time >= last.create_time) last = x;
      }
      return last;
    }

    function renderPeople() {
      if (!st.active) return;
      const current = person();
      const teams = new Map();
      for (const p of hooks.people()) {
        if (!teams.has(p.team)) teams.set(p.team, []);
        teams.get(p.team).push(p);
      }
      const nodes = [];
      for (const people of teams.values()) {
        nodes.push(h("div", { class: "lk-team" }, NET.teamOf(people[0], zh())));
        for (const p of people) {
          const on = Boolean(p.feishu_open_id);
          const classes = ["lk-person"];
          if (current && p.user_id === current.user_id) classes.push("active");
          if (!on) classes.push("off");
          if (on && st.unread.has(p.feishu_open_id)) classes.push("unread");
          nodes.push(
            h(
              "button",
              {
                type: "button",
                role: "listitem",
                class: classes.join(" "),
                dataset: { user: p.user_id, openId: p.feishu_open_id || null },
                title: on ? `${p.name} · ${NET.titleOf(p, zh())}` : t(`${p.name} is not on Feishu`, `${p.name} 未开通飞书`),
                onclick: () => hooks.switchUser(p.user_id),
              },
              on ? avatar(p.feishu_open_id, "small") : h("span", { class: "lk-avatar small off", "aria-hidden": "true" }, initials(p.name)),
              h("span", { class: "lk-person-text" }, h("span", { class: "lk-person-name" }, p.name), h("span", { class: "lk-person-title" }, on ? NET.titleOf(p, zh()) : t("Not on Feishu", "未开通飞书"))),
              p.pending && on ? h("span", { class: "lk-badge", title: t(`${p.pending} waiting for approval`, `${p.pending} 条待审批`) }, String(p.pending)) : null
            )
          );
        }
      }
      $("lk-people").replaceChildren(...nodes);
    }

    function render(forceBottom, threadBottom) {
      if (!st.active || !person()) return;
      renderChrome();
      renderPeople();
      const disabled = !st.openId;
      $("lk-composer").hidden = disabled;
      $("lk-bot-menu").hidden = disabled;
      if (disabled) {
        st.msgCache.clear();
        $("lk-messages").replaceChildren(notOnFeishu());
        $("lk-thread").hidden = true;
        return;
      }
      if (!st.snap) return;
      // Scroll after both panes are drawn: opening the thread narrows the chat, which grows taller.
      const list = $("lk-messages");
      const body = $("lk-thread-body");
      const followList = forceBottom || nearBottom(list);
      const followThread = forceBottom || threadBottom || $("lk-thread").hidden || nearBottom(body);
      renderMessages();
      renderThread();
      if (followList) list.scrollTop = list.scrollHeight;
      if (followThread && !$("lk-thread").hidden) body.scrollTop = body.scrollHeight;
    }

    // ---- refreshing ----

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
          const openId = st.openId;
          if (!openId || !st.active) break;
          const snap = await getJSON("/sandbox/feishu/snapshot?open_id=" + encodeURIComponent(openId));
          if (openId !== st.openId) {
            refreshAgain = true;
            continue;
          }
          st.snap = snap;
          const bottom = wantBottom;
          wantBottom = false;
          render(bottom, bottom);
        } while (refreshAgain);
      } catch (e) {
        if (e.kind === "stale") hooks.stale();
        else if (e.kind !== "offline") toast({ type: "error", content: NET.explain(e, zh()) }); // offline: the banner says it
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

    // ---- the bot menu ----

    /** The bot's menu under the chat, as Feishu shows it: its items and names come from the bot. */
    function renderMenu() {
      const feishu = hooks.info() && hooks.info().feishu;
      const items = (feishu && feishu.menu) || [];
      const bar = $("lk-bot-menu");
      bar.setAttribute("aria-label", t("Bot menu", "机器人菜单"));
      const sig = items.map((i) => i.key).join("|") + zh();
      if (bar.dataset.sig === sig) return;
      bar.dataset.sig = sig;
      bar.replaceChildren(
        h("span", { class: "lk-bot-menu-icon", "aria-hidden": "true" }, "☰"),
        ...items.map((item) =>
          h(
            "button",
            { type: "button", class: "lk-bot-menu-item", dataset: { key: item.key }, onclick: () => pickMenu(item.key) },
            zh() ? item.zh : item.en
          )
        )
      );
    }

    /** Pick a menu item: Feishu pushes application.bot.menu_v6 and the bot answers with a card. */
    async function pickMenu(key) {
      if (!st.openId) return;
      try {
        await post("/sandbox/feishu/menu", { open_id: st.openId, event_key: key });
      } catch {
        return; // post() has shown why
      }
      wantBottom = true;
      scheduleRefresh();
    }

    // ---- composing ----

    /** Send a message as the person; null when it went, else the sentence saying why not. */
    async function send(text, rootId) {
      const clean = String(text || "").trim();
      if (!clean || !st.openId) return null;
      const body = { open_id: st.openId, text: clean, root_id: rootId || null };
      const { res, error } = await NET.sendMessage("/sandbox/feishu/message", body, zh(), hooks.stale);
      if (!res) return error;
      if (!rootId && res.message_id) setThread(res.message_id); // the bot answers in its thread
      wantBottom = true;
      scheduleRefresh();
      return error;
    }

    async function sendChip(text) {
      const error = await send(text, null);
      if (error) toast({ type: "error", content: error });
    }

    function wireComposer(formId, inputId, rootOf) {
      NET.composer($(formId), $(inputId), (text) => send(text, rootOf()), { maxHeight: 180 });
    }

    // ---- live updates ----

    function connect() {
      NET.events("/sandbox/feishu/events", {
        hello: () => {
          st.live = true;
          hooks.liveChanged();
          scheduleRefresh();
        },
        message: (record) => {
          if (record.user && record.user === st.openId) scheduleRefresh();
          else if (record.user && record.change === "message" && record.from === "bot" && !st.unread.has(record.user)) {
            st.unread.add(record.user);
            renderPeople();
          }
          if (record.from === "bot") hooks.peopleChanged(); // an approval card or a decision: the badges
        },
        down: () => {
          st.live = false;
          hooks.liveChanged();
        },
        stale: () => hooks.stale(),
      });
    }

    // ---- the api app.js uses ----

    function userChanged() {
      const p = person();
      const openId = (p && p.feishu_open_id) || null;
      if (openId !== st.openId) {
        st.openId = openId;
        st.snap = null;
        setThread(null);
        st.msgCache.clear();
        $("lk-messages").replaceChildren();
        $("lk-dialog-overlay").hidden = true;
        $("lk-toast").hidden = true; // a toast answers the click of whoever was here before
      }
      if (openId) st.unread.delete(openId);
      if (!st.active) return;
      wantBottom = true;
      render(true, true);
      scheduleRefresh();
      if (openId) $("lk-input").focus();
    }

    function show() {
      st.active = true;
      st.openId = undefined; // force a fresh start for the current person
      userChanged();
    }

    function hide() {
      st.active = false;
      $("lk-dialog-overlay").hidden = true;
    }

    wireComposer("lk-composer", "lk-input", () => null);
    wireComposer("lk-thread-composer", "lk-thread-input", () => st.threadRoot);
    $("lk-thread-close").addEventListener("click", closeThread);
    connect();

    return { show, hide, userChanged, renderPeople, isLive: () => st.live };
  }

  window.Feishu = { create, renderCard, buttonsOf, larkMd, textObject };
})();
