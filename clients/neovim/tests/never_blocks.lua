-- Headless test that fathom.nvim never freezes Neovim (run by test/clients-neovim.test.ts) on a
-- repository whose first index takes seconds, through the user's shared daemon (`fathom attach`):
--   FATHOM_TEST_ROOT=<large repo> FATHOM_TEST_NODE=<node> FATHOM_TEST_MAIN=<bin/fathom.js> \
--   FATHOM_SOCKET=<socket> nvim --headless -u clients/neovim/tests/never_blocks.lua
-- A grep is sent during the first index and keys are typed at once: they must be taken while the
-- answer is still awaited, the daemon's progress must reach the statusline text, the answer must
-- fill the quickfix list when it comes, and a new query must cancel the one still running.
-- Prints one line per check; exits 0 when every check held.
local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/tests/')
vim.opt.runtimepath:prepend(here)
vim.opt.swapfile = false

local root = assert(os.getenv('FATHOM_TEST_ROOT'), 'FATHOM_TEST_ROOT')
local harness = dofile(here .. '/tests/harness.lua')
local check, quickfix = harness.check, harness.quickfix

local finish = harness.finish

local fathom = require('fathom')
fathom.setup({
  cmd = { os.getenv('FATHOM_TEST_NODE'), os.getenv('FATHOM_TEST_MAIN'), 'attach' },
  cmd_env = { FATHOM_SOCKET = os.getenv('FATHOM_SOCKET'), FATHOM_CACHE_DIR = os.getenv('FATHOM_CACHE_DIR'), FATHOM_LOG = 'warn' },
  open_quickfix = false,
})
check('the default command is the shared daemon', vim.deep_equal(fathom.defaults.cmd, { 'fathom', 'attach' }), fathom.defaults.cmd)
vim.cmd('cd ' .. root)
vim.cmd('edit ' .. root .. '/notes.txt')

-- Every statusline text shown while a request waited.
local shown = {}
vim.api.nvim_create_autocmd('User', { pattern = 'FathomProgress', callback = function()
  local text = fathom.statusline()
  if text ~= '' then
    shown[#shown + 1] = text
  end
end })
-- Whether the grep was still waiting when the typed keys had been taken.
local busy_when_typed
vim.api.nvim_create_autocmd('InsertLeave', { once = true, callback = function()
  busy_when_typed = fathom.busy('list')
end })

vim.cmd('FathomGrep handler19999')
check(':FathomGrep returns before its answer', fathom.busy('list'), fathom.statusline())
-- Keys typed now are read by Neovim's main loop, which runs once this script returns.
vim.api.nvim_input('Otyped while indexing<Esc>')

local phase = 'first index'
local deadline = vim.loop.now() + 90000
local timer = vim.loop.new_timer()
timer:start(20, 20, vim.schedule_wrap(function()
  if vim.loop.now() > deadline then
    timer:stop()
    check('answered within 90 s (' .. phase .. ')', false, fathom.statusline())
    return finish()
  end
  if phase == 'first index' and busy_when_typed ~= nil and not fathom.busy() then
    check('keys were taken while the grep waited for the first index', busy_when_typed == true, busy_when_typed)
    check('the typed text is in the buffer', vim.api.nvim_buf_get_lines(0, 0, 1, false)[1] == 'typed while indexing', vim.api.nvim_buf_get_lines(0, 0, 2, false))
    local indexing = false
    for _, text in ipairs(shown) do
      indexing = indexing or text:find('^fathom: Indexing ' .. vim.pesc(vim.loop.fs_realpath(root))) ~= nil
    end
    check("the daemon's progress reached the statusline", indexing, shown)
    check('the answer filled the quickfix list when it came', vim.deep_equal(quickfix(), { 'gen/99/m19999.ts:1:17' }), quickfix())
    check('the statusline is empty once nothing waits', fathom.statusline() == '', fathom.statusline())
    -- A new query cancels the one still running: only the second one's answer is shown.
    vim.cmd('FathomGrep handler1')
    vim.cmd('FathomGrep handler19998')
    phase = 'second query'
  elseif phase == 'second query' and not fathom.busy() then
    timer:stop()
    check('a new query cancelled the one before it', vim.fn.getqflist({ title = 1 }).title == 'FathomGrep handler19998' and vim.deep_equal(quickfix(), { 'gen/98/m19998.ts:1:17' }), { vim.fn.getqflist({ title = 1 }).title, quickfix() })
    finish()
  end
end))
