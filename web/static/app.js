// Copy buttons: progressive enhancement. Buttons are hidden in the HTML
// and shown here, so without JavaScript nobody sees a button that does
// nothing. No inline script anywhere: the page's CSP forbids it.
(function () {
  "use strict";

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).then(function () { return true; }, function () { return fallbackCopy(text); });
    }
    return Promise.resolve(fallbackCopy(text));
  }

  // fallbackCopy copies through a temporary, off-screen text area, for
  // browsers without the asynchronous clipboard (plain HTTP origins).
  function fallbackCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "offscreen";
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(area);
    return ok;
  }

  function flash(button, label) {
    var original = button.getAttribute("data-label") || button.textContent;
    button.setAttribute("data-label", original);
    button.textContent = label;
    window.setTimeout(function () { button.textContent = original; }, 1600);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var buttons = document.querySelectorAll("button.copy[data-copy]");
    Array.prototype.forEach.call(buttons, function (button) {
      button.hidden = false;
      button.setAttribute("aria-label", "Copy " + (button.getAttribute("data-copy") || "").replace(/-/g, " "));
      button.addEventListener("click", function () {
        var target = document.getElementById(button.getAttribute("data-copy"));
        if (!target) { return; }
        copyText(target.textContent).then(function (ok) {
          flash(button, ok ? "Copied" : "Press Ctrl+C");
          if (!ok) {
            var range = document.createRange();
            range.selectNodeContents(target);
            var sel = window.getSelection();
            sel.removeAllRanges();
            sel.addRange(range);
          }
        });
      });
    });

    // Show the chosen file's name next to the text area's hint.
    var file = document.getElementById("file");
    var hint = document.getElementById("content-hint");
    if (file && hint) {
      file.addEventListener("change", function () {
        if (file.files && file.files.length) {
          hint.textContent = "The file “" + file.files[0].name + "” will be used instead of the text above (byte for byte).";
        }
      });
    }
  });
})();
