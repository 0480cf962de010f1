// Drives code-server in Debian's chromium (playwright-core): opens a Python file, types at its
// end, opens the suggest widget and waits for an item; then, on a new line, types MEMBER_TYPED
// and waits for a row that reads MEMBER_SHOWN (a member with its signature); saves a
// screenshot of each; then, on a new line, types IMPORT_TYPED, accepts IMPORT_LABEL with Tab and
// reads the editor's lines (the import the item adds). Prints JSON.
//   node drive.js URL FILE_NAME TYPED EXPECTED SCREENSHOT [MEMBER_TYPED MEMBER_SHOWN [IMPORT_TYPED IMPORT_LABEL]]
const { chromium } = require("playwright-core");

const [url, fileName, typed, expected, screenshot, memberTyped, memberShown, importTyped, importLabel] = process.argv.slice(2);

async function suggestUntil(page, done, timeout) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    await page.keyboard.press("Control+Space");
    await page.waitForTimeout(1500);
    const labels = await page.locator(".suggest-widget .monaco-list-row").allInnerTexts().catch(() => []);
    if (done(labels)) return labels;
    await page.keyboard.press("Escape");
    await page.waitForTimeout(1000);
  }
  return null;
}

async function main() {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const result = { found: false, detail: "", status: "" };
  try {
    await page.goto(url);
    await page.waitForSelector(".monaco-workbench", { timeout: 120000 });
    await page.waitForTimeout(3000);
    // open the file from the Explorer
    await page.locator(".explorer-folders-view .monaco-list-row", { hasText: fileName }).first().dblclick({ timeout: 60000 });
    await page.waitForSelector(".editor-instance .monaco-editor .view-lines", { timeout: 60000 });
    await page.click(".editor-instance .monaco-editor .view-lines");
    await page.keyboard.press("Control+End");
    await page.keyboard.type(typed, { delay: 80 });
    const deadline = Date.now() + 150000;
    while (Date.now() < deadline && !result.found) {
      result.status = (await page.locator("#status\\.extensionItems, .statusbar").first().innerText().catch(() => "")) || "";
      await page.keyboard.press("Control+Space");
      await page.waitForTimeout(1500);
      const rows = page.locator(".suggest-widget .monaco-list-row");
      const labels = await rows.allInnerTexts().catch(() => []);
      result.labels = labels.slice(0, 10);
      const focused = await page.locator(".suggest-widget .monaco-list-row.focused").innerText().catch(() => "");
      const details = await page.locator(".suggest-details").innerText().catch(() => "");
      result.detail = focused + " | " + details;
      // the model's copy: the item and its detail, once the model has loaded
      if (labels.some((l) => l.includes(expected)) && /copied from line \d+/.test(result.detail)) {
        result.found = true;
        break;
      }
      await page.keyboard.press("Escape");
      await page.waitForTimeout(2000);
    }
    await page.screenshot({ path: screenshot });
    if (result.found && memberTyped) {
      await page.keyboard.press("Escape");
      await page.keyboard.press("End");
      await page.keyboard.press("Enter");
      await page.keyboard.type(memberTyped, { delay: 80 });
      const labels = await suggestUntil(page, (rows) => rows.some((r) => r.replace(/\s+/g, "").includes(memberShown.replace(/\s+/g, ""))), 60000);
      result.member = labels ? labels.slice(0, 5) : null;
      await page.screenshot({ path: screenshot.replace(/\.png$/, "-member.png") });
    }
    if (result.found && importTyped) {
      await page.keyboard.press("Escape");
      await page.keyboard.press("End");
      await page.keyboard.press("Enter");
      await page.keyboard.type(importTyped, { delay: 80 });
      const labels = await suggestUntil(page, (rows) => rows.some((r) => r.startsWith(importLabel)), 60000);
      if (labels) {
        await page.keyboard.press("Tab");
        await page.waitForTimeout(1500);
        await page.screenshot({ path: screenshot.replace(/\.png$/, "-import.png") });
      }
      result.lines = (await page.locator(".editor-instance .monaco-editor .view-lines").innerText()).split("\n");
    }
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(result));
}

main().catch((error) => {
  console.log(JSON.stringify({ error: String(error) }));
  process.exit(1);
});
