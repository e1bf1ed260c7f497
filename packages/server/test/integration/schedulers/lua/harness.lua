--[[
Runs a SLURM Lua plugin the way SLURM does, outside SLURM (Lua 5.1):
  lua5.1 harness.lua cli_filter <script> <input.lua>
  lua5.1 harness.lua job_submit <script> <input.lua>
<input.lua> returns { options = {...}, pack_offset = 0 } (cli_filter) or
{ job_desc = {...}, submit_uid = 1000 } (job_submit).

The `slurm` table and the argument tables behave as SLURM's C code makes them:
- cli_filter (src/plugins/cli_filter/lua/cli_filter_lua.c): `options` is an empty table whose
  metatable reads every option by name (__index -> slurm_option_get, strings or nil) and sets it
  (__newindex -> slurm_option_set, value must be a string or a number); `pairs()` sees nothing.
  The cli_filter `slurm` table has no log_user (the client prints log_info to the terminal).
- job_submit (src/plugins/job_submit/lua/job_submit_lua.c): `job_desc` is read and written
  through its metatable as well; numbers carry NO_VAL sentinels, setting `gres` stores
  tres_per_node with the TRES prefix, min_mem_per_cpu and min_mem_per_node share one field.
Everything the plugin does is printed as tab-separated lines: rc, set, user, info, error, verbose.
]]

local mode, script, input = arg[1], arg[2], arg[3]

local function emit(kind, ...)
  local parts = { kind }
  for i = 1, select("#", ...) do
    parts[#parts + 1] = (string.gsub(tostring((select(i, ...))), "[\t\n]", " "))
  end
  io.write(table.concat(parts, "\t"), "\n")
end

local function logger(kind)
  return function(fmt, ...) emit(kind, string.format(fmt, ...)) end
end

slurm = {
  SUCCESS = 0, ERROR = -1, FAILURE = -1,
  NO_VAL = 4294967294, NO_VAL16 = 65534, NO_VAL64 = 18446744073709551614,
  log_info = logger("info"), log_error = logger("error"), log_verbose = logger("verbose"),
  log_debug = logger("debug"), log_debug2 = logger("debug"), log_debug3 = logger("debug"),
}
if mode == "job_submit" then slurm.log_user = logger("user") end

local data = dofile(input)

local function proxy(store, setter)
  return setmetatable({}, {
    __index = function(_, key) return store[key] end,
    __newindex = function(_, key, value)
      if type(value) ~= "string" and type(value) ~= "number" then
        error("bad argument #3 to '?' (string expected, got " .. type(value) .. ")")
      end
      setter(store, key, value)
      emit("set", key, value)
    end,
  })
end

local rc
if mode == "cli_filter" then
  local options = proxy(data.options, function(store, key, value) store[key] = tostring(value) end)
  dofile(script)
  assert(type(slurm_cli_setup_defaults) == "function", "slurm_cli_setup_defaults missing")
  assert(type(slurm_cli_post_submit) == "function", "slurm_cli_post_submit missing")
  rc = slurm_cli_pre_submit(options, data.pack_offset or 0)
elseif mode == "job_submit" then
  local job_desc = proxy(data.job_desc, function(store, key, value)
    if key == "gres" then
      store.tres_per_node = "gres/" .. value
    elseif key == "min_mem_per_cpu" then
      store.min_mem_per_cpu, store.min_mem_per_node = value, nil
    elseif key == "min_mem_per_node" then
      store.min_mem_per_node, store.min_mem_per_cpu = value, nil
    else
      store[key] = value
    end
  end)
  dofile(script)
  assert(type(slurm_job_modify) == "function", "slurm_job_modify missing")
  rc = slurm_job_submit(job_desc, {}, data.submit_uid or 1000)
else
  error("mode must be cli_filter or job_submit")
end
emit("rc", tostring(rc))
