-- fathom.nvim: Neovim as a client of the Fathom daemon. Starts (or reuses) one `vim.lsp` client
-- per workspace root, so Neovim's own LSP sync sends every open buffer to the daemon at keystroke
-- speed (didOpen/didChange): searches see unsaved text. Commands send Fathom's own requests over
-- that client without waiting for the answer: the editor keeps taking keys while the daemon works
-- (a first index of a large tree takes minutes), the daemon's `$/progress` shows in
-- M.statusline() and the echo area, the answer fills the quickfix list when it arrives, and a new
-- query cancels the one still running. The plugin never writes a file.
-- Works on Neovim 0.7 (Debian's) and later: only vim.lsp.start_client, buf_attach_client and
-- client.request / cancel_request are used.
local M = {}

-- Defaults; setup(opts) merges over them.
M.defaults = {
  -- How to run the daemon: Neovim speaks LSP to it over stdio. `fathom attach` joins the user's
  -- one daemon on its socket (started when none runs), shared with the CLI, agents and other
  -- editors; { 'fathom', 'serve', '--stdio' } runs a private daemon per Neovim instead.
  cmd = { 'fathom', 'attach' },
  -- Extra environment for the daemon (e.g. { FATHOM_CACHE_DIR = '/tmp/fathom' }).
  cmd_env = nil,
  -- Files that mark a workspace root, searched upward from a buffer's file.
  root_markers = { '.git' },
  -- How long M.request_sync (:checkhealth) waits for an answer. Commands never wait.
  timeout_ms = 10000,
  -- At most this many results in the quickfix list.
  max_results = 2000,
  -- Open the quickfix window when a command found something.
  open_quickfix = true,
  -- Echo the daemon's progress (and which request is running) while a command waits for its
  -- answer; M.statusline() gives the same text for a statusline.
  echo_progress = true,
  -- vim.lsp client flags; debounce_text_changes is how long Neovim waits after a keystroke
  -- before it sends the change (searches see text that old).
  flags = { debounce_text_changes = 50 },
}

M.config = vim.deepcopy(M.defaults)

-- root -> client id
local clients = {}

-- Requests waiting for their answer, by slot: every command that fills the quickfix list shares
-- the slot 'list' (a new search cancels the one before it); others use their method's name.
-- slot -> { client, id, label, token }
local inflight = {}
-- The daemon's $/progress by token: { title, message, percentage }.
local progress = {}
local tokens = 0
local last_echo = 0

-- Neovim 0.11 made a client's functions methods (client:request(...)); 0.7 to 0.10 have
-- plain function fields (client.request(...)).
local methods = vim.fn.has('nvim-0.11') == 1
local function client_call(client, name, ...)
  if methods then
    return client[name](client, ...)
  end
  return client[name](...)
end

local function notify(message, level)
  vim.notify('fathom: ' .. message, level or vim.log.levels.INFO)
end

--- What Fathom is doing, for a statusline ('' when it waits for nothing): the daemon's progress
--- of the running request ("fathom: Indexing /src/linux: 41,230/78,491 files (52%)"), else the
--- request itself ("fathom: grep foo…").
function M.statusline()
  for _, entry in pairs(inflight) do
    local shown = progress[entry.token]
    if shown and shown.title then
      local text = shown.title
      if shown.message and shown.message ~= '' then
        text = text .. ': ' .. shown.message
      end
      if shown.percentage then
        text = text .. string.format(' (%d%%)', shown.percentage)
      end
      return 'fathom: ' .. text
    end
  end
  for _, entry in pairs(inflight) do
    return 'fathom: ' .. entry.label .. '…'
  end
  return ''
end

--- Whether a request is waiting for its answer (in `slot`, or in any slot).
function M.busy(slot)
  if slot then
    return inflight[slot] ~= nil
  end
  return next(inflight) ~= nil
end

-- Something shown changed: statuslines redraw, `User FathomProgress` fires, and while a request
-- runs the echo area says what it waits for (at most ten times a second).
local function changed()
  pcall(vim.cmd, 'redrawstatus!')
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'FathomProgress', modeline = false })
  if M.config.echo_progress and M.busy() then
    local now = vim.loop.now()
    if now - last_echo >= 100 then
      last_echo = now
      vim.api.nvim_echo({ { M.statusline(), 'Comment' } }, false, {})
    end
  end
end

local function on_progress(_, result)
  local value = type(result) == 'table' and result.value or nil
  if type(value) ~= 'table' then
    return
  end
  local token = result.token
  if value.kind == 'begin' then
    progress[token] = { title = value.title, message = value.message, percentage = value.percentage }
  elseif value.kind == 'report' then
    local shown = progress[token] or {}
    shown.message = value.message or shown.message
    shown.percentage = value.percentage or shown.percentage
    progress[token] = shown
  elseif value.kind == 'end' then
    progress[token] = nil
  end
  changed()
end

--- The workspace root of a file: the nearest folder above it holding a root marker, else its folder.
function M.root_of(file)
  local folder = vim.fn.fnamemodify(file, ':p:h')
  for _, marker in ipairs(M.config.root_markers) do
    local found = vim.fn.finddir(marker, folder .. ';')
    if found == '' then
      found = vim.fn.findfile(marker, folder .. ';')
    end
    if found ~= '' then
      return vim.fn.fnamemodify(found, ':p:h:h'):gsub('/$', '')
    end
  end
  return folder
end

local function buffer_root(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr or 0)
  if name == '' then
    return M.root_of(vim.fn.getcwd() .. '/.')
  end
  return M.root_of(name)
end

--- The client for a root, started on first use.
function M.client_for(root)
  local id = clients[root]
  if id then
    local client = vim.lsp.get_client_by_id(id)
    if client and not client_call(client, 'is_stopped') then
      return client
    end
  end
  id = vim.lsp.start_client({
    name = 'fathom',
    cmd = M.config.cmd,
    cmd_env = M.config.cmd_env,
    root_dir = root,
    flags = M.config.flags,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    handlers = { ['$/progress'] = on_progress },
    on_exit = function(code)
      -- Answers that will never come: their commands say so instead of waiting forever.
      for slot, entry in pairs(inflight) do
        if entry.root == root then
          inflight[slot] = nil
          progress[entry.token] = nil
          vim.schedule(function()
            notify(string.format('the daemon connection for %s closed (exit %s) before %s answered', root, tostring(code), entry.label), vim.log.levels.ERROR)
          end)
        end
      end
      vim.schedule(changed)
    end,
  })
  if not id then
    notify('could not start ' .. table.concat(M.config.cmd, ' '), vim.log.levels.ERROR)
    return nil
  end
  clients[root] = id
  return vim.lsp.get_client_by_id(id)
end

--- Attaches a buffer (a file inside a root) to that root's client: from then on its text is synced.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.bo[bufnr].buftype ~= '' or vim.api.nvim_buf_get_name(bufnr) == '' then
    return
  end
  local client = M.client_for(buffer_root(bufnr))
  if client then
    vim.lsp.buf_attach_client(bufnr, client.id)
  end
end

--- Cancels the request waiting in `slot` (every slot when nil): its answer, if it still comes, is
--- dropped, and the daemon is sent $/cancelRequest.
function M.cancel(slot)
  for name, entry in pairs(inflight) do
    if slot == nil or name == slot then
      inflight[name] = nil
      progress[entry.token] = nil
      pcall(client_call, entry.client, 'cancel_request', entry.id)
    end
  end
  changed()
end

--- Sends a Fathom request for the current buffer's workspace and returns at once; `callback`
--- gets (result, nil) or (nil, error message) when the answer arrives, unless a newer request in
--- the same slot cancelled it first. opts: slot (default the method), label (what the
--- statusline says meanwhile), bufnr. The request carries a workDoneToken, so the daemon's
--- progress on it shows in M.statusline().
function M.request(method, params, callback, opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local root = buffer_root(bufnr)
  local client = M.client_for(root)
  if not client then
    callback(nil, 'no client for ' .. root)
    return nil
  end
  tokens = tokens + 1
  local token = string.format('fathom.nvim/%d/%d', vim.fn.getpid(), tokens)
  params = vim.tbl_extend('keep', params or {}, { root = root, workDoneToken = token })
  local slot = opts.slot or method
  if inflight[slot] then
    M.cancel(slot)
  end
  local entry = { client = client, root = root, label = opts.label or method, token = token }
  local sent, id = client_call(client, 'request', method, params, function(err, result)
    if inflight[slot] ~= entry then
      return -- cancelled, or replaced by a newer request
    end
    inflight[slot] = nil
    progress[token] = nil
    changed()
    if M.config.echo_progress and not M.busy() then
      vim.api.nvim_echo({ { '' } }, false, {})
    end
    if err then
      callback(nil, err.message or vim.inspect(err))
    else
      callback(result, nil)
    end
  end, bufnr)
  if not sent then
    callback(nil, 'the daemon is not running (' .. table.concat(M.config.cmd, ' ') .. ')')
    return nil
  end
  entry.id = id
  inflight[slot] = entry
  changed()
  return id
end

--- A request that waits for its answer (up to timeout_ms), for :checkhealth and scripts;
--- (result, error message).
function M.request_sync(method, params, bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local root = buffer_root(bufnr)
  local client = M.client_for(root)
  if not client then
    return nil, 'no client'
  end
  params = vim.tbl_extend('keep', params or {}, { root = root })
  local response, err = client_call(client, 'request_sync', method, params, M.config.timeout_ms, bufnr)
  if not response then
    return nil, err or 'no answer within ' .. M.config.timeout_ms .. ' ms'
  end
  if response.err then
    return nil, response.err.message or vim.inspect(response.err)
  end
  return response.result, nil
end

--- Blocks until no request waits (or timeout_ms passes); true when none does. For scripts and tests.
function M.wait(timeout_ms)
  return vim.wait(timeout_ms or M.config.timeout_ms, function()
    return not M.busy()
  end, 10)
end

--- A request whose failure is told to the user; `on_result` gets the result.
local function ask(method, params, label, on_result, slot)
  return M.request(method, params, function(result, err)
    if result then
      on_result(result)
    else
      notify(err, vim.log.levels.ERROR)
    end
  end, { slot = slot or 'list', label = label })
end

local function to_quickfix(title, root, items)
  local list = {}
  for index, item in ipairs(items) do
    if index > M.config.max_results then
      break
    end
    table.insert(list, { filename = root .. '/' .. item.path, lnum = item.line, col = item.column, text = item.text })
  end
  vim.fn.setqflist({}, ' ', { title = title, items = list })
  if #list > 0 and M.config.open_quickfix then
    vim.cmd('copen')
  end
  return #list
end

-- "(still building: ranking 12,000/78,491 files)" for an answer made from part of an index.
local function building_note(result)
  if type(result.building) ~= 'table' or #result.building == 0 then
    return ''
  end
  local parts = {}
  for _, entry in ipairs(result.building) do
    table.insert(parts, string.format('%s %d/%d files', entry.index, entry.done, entry.total))
  end
  return ' (still building: ' .. table.concat(parts, ', ') .. ')'
end

--- :FathomGrep {regex}: the regex index (fresh to unsaved buffers) into the quickfix list.
function M.grep(pattern, options)
  return ask('fathom/grep', vim.tbl_extend('keep', options or {}, { pattern = pattern, maxResults = M.config.max_results }), 'grep ' .. pattern, function(result)
    local items = {}
    for _, match in ipairs(result.matches) do
      table.insert(items, { path = match.path, line = match.line, column = match.column, text = match.text })
    end
    local count = to_quickfix('FathomGrep ' .. pattern, result.root, items)
    if count == 0 then
      notify('no match for ' .. pattern)
    elseif result.truncated then
      notify(string.format('the first %d matches of %s (max_results)', count, pattern))
    end
  end)
end

--- :CodeSearch {query}: words (ranked over whole functions and classes), an identifier (its
--- definitions, then where it is written), a regex or a fragment of code (fathom/codeSearch
--- picks by the query's shape). Each hit goes to the quickfix list at its best line, with the
--- chunk's line range in the text.
function M.code_search(query)
  return ask('fathom/codeSearch', { query = query, maxResults = M.config.max_results, maxInlineBytes = 0 }, 'search ' .. query, function(result)
    local items = {}
    for _, hit in ipairs(result.hits) do
      local text
      if hit.start == hit['end'] then
        text = hit.snippet
      else
        local lines = vim.split(hit.snippet, '\n', { plain = true })
        text = string.format('[%d-%d] %s', hit.start, hit['end'], vim.trim(lines[hit.line - hit.snippetStart + 1] or ''))
      end
      table.insert(items, { path = hit.path, line = hit.line, column = hit.column or 1, text = text })
    end
    local count = to_quickfix('CodeSearch ' .. query .. ' (' .. result.route .. ')', result.root, items)
    local note = building_note(result)
    if count == 0 then
      notify('nothing found for ' .. query .. note)
    elseif note ~= '' then
      notify(count .. ' hits' .. note)
    end
  end)
end

--- :StructuralSearch {pattern}: code with $X / $$$X metavariables, in the current buffer's language.
function M.structural_search(pattern, language)
  language = language or vim.bo.filetype
  if language == '' then
    notify('no language: open a file of that language, or :StructuralSearch in one', vim.log.levels.ERROR)
    return nil
  end
  return ask('fathom/structuralSearch', { pattern = pattern, language = language, maxResults = M.config.max_results }, 'structural search ' .. pattern, function(result)
    local items = {}
    for _, match in ipairs(result.matches) do
      table.insert(items, { path = match.path, line = match.range.start.line, column = match.range.start.column, text = match.lineText })
    end
    if to_quickfix('StructuralSearch ' .. pattern, result.root, items) == 0 then
      notify('no match for ' .. pattern)
    end
  end)
end

local function cursor_params()
  local cursor = vim.api.nvim_win_get_cursor(0)
  local line = vim.api.nvim_get_current_line()
  -- Fathom's columns are 1-based UTF-16 units; Neovim's are 0-based bytes.
  local column = vim.str_utfindex(line, cursor[2]) + 1
  return { path = vim.api.nvim_buf_get_name(0), position = { line = cursor[1], column = column } }
end

--- :FathomRefs: every reference to the symbol under the cursor (the code graph), with how sure each is.
function M.references()
  return ask('fathom/references', cursor_params(), 'references', function(result)
    local items = {}
    for _, reference in ipairs(result.references) do
      local sure = reference.confidence == 'exact' and '' or ' [' .. reference.confidence .. ']'
      table.insert(items, { path = reference.path, line = reference.range.start.line, column = reference.range.start.column, text = reference.text .. sure })
    end
    if to_quickfix('FathomRefs', result.root, items) == 0 then
      notify('no references' .. building_note(result))
    end
  end)
end

--- :FathomImpact [depth]: what depends on the definition under the cursor, nearest first.
function M.impact(depth)
  return ask('fathom/impact', vim.tbl_extend('force', cursor_params(), { depth = depth or 3 }), 'impact', function(result)
    local items = {}
    for _, entry in ipairs(result.impacted) do
      local symbol = entry.symbol
      local where = symbol and symbol.selectionRange.start or (entry.sites[1] and entry.sites[1].range.start) or { line = 1, column = 1 }
      local name = symbol and table.concat(vim.list_extend(vim.deepcopy(symbol.container), { symbol.name }), '.') or '(top level)'
      table.insert(items, { path = entry.path, line = where.line, column = where.column, text = string.format('%d %s (%s, %d)', entry.distance, name, entry.confidence, #entry.sites) })
    end
    to_quickfix('FathomImpact', result.root, items)
  end)
end

--- :FathomStatus: the workspace's file set and indexes, in a message. `on_result` (optional)
--- gets the answer too.
function M.status(on_result)
  return ask('fathom/status', {}, 'status', function(result)
    local lines = {}
    for _, workspace in ipairs(result.workspaces) do
      local indexes = {}
      for name, state in pairs(workspace.indexes or {}) do
        table.insert(indexes, name .. ' ' .. state)
      end
      table.sort(indexes)
      table.insert(lines, string.format('%s: %s, %d files, %s', workspace.root, workspace.state, workspace.files or 0, table.concat(indexes, ', ')))
    end
    notify(table.concat(lines, '\n'))
    if on_result then
      on_result(result)
    end
  end, 'status')
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  local group = vim.api.nvim_create_augroup('fathom', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, { group = group, callback = function(args)
    M.attach(args.buf)
  end })
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      M.attach(bufnr)
    end
  end
  local command = vim.api.nvim_create_user_command
  command('FathomGrep', function(args) M.grep(args.args) end, { nargs = 1, desc = 'Fathom: regex search into the quickfix list' })
  command('CodeSearch', function(args) M.code_search(args.args) end, { nargs = 1, desc = 'Fathom: search the code for words' })
  command('StructuralSearch', function(args) M.structural_search(args.args) end, { nargs = 1, desc = 'Fathom: structural search ($X metavariables)' })
  command('FathomRefs', function() M.references() end, { nargs = 0, desc = 'Fathom: references of the symbol under the cursor' })
  command('FathomImpact', function(args) M.impact(tonumber(args.args)) end, { nargs = '?', desc = 'Fathom: what depends on the symbol under the cursor' })
  command('FathomStatus', function() M.status() end, { nargs = 0, desc = 'Fathom: workspace status' })
  command('FathomCancel', function() M.cancel() end, { nargs = 0, desc = 'Fathom: cancel the requests still waiting' })
end

return M
