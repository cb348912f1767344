// A scheduler as the host sees it: the object, and the plugin that made it
// (so every call can be guarded and failures named). buildSchedulers
// (scheduler_setup.h) makes them; the segmenter and the runtime ask them.
#pragma once

#include <fusebox/plugin/plugin_registry.h>
#include <fusebox/scheduler.h>

#include <memory>

namespace fusebox {

struct SchedulerEntry {
  PluginDescriptor plugin;
  std::shared_ptr<Scheduler> scheduler;
};

}  // namespace fusebox
