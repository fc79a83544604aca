// The installed profiling library from C++: <hesper/profiling.h> with its extern "C"
// guards, built by lib_install.sh with `pkg-config --cflags --libs hesper` only.
// Exit status 0 when every result is right, 1 otherwise.
#include <hesper/profiling.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

int main()
{
	std::vector<hesper_event> events;
	events.push_back(hesper_event_from_timestamps("matmul", 1000, 3500));
	events.push_back(hesper_event_from_ticks("softmax", 0xffffff00u, 0x100u, 52.08f, 32));
	events.push_back(hesper_event_from_timestamps("matmul", 4000, 5000));

	hesper_summary s = hesper_summary_from_events(events.data(), events.size());
	hesper_kernel_group *groups = nullptr;
	size_t n = hesper_group_by_kernel(events.data(), events.size(), &groups);
	std::string first = n ? groups[0].name : "";
	hesper_kernel_groups_free(groups, n);

	char line[256];
	std::string text(line, static_cast<size_t>(hesper_summary_format(line, sizeof line, &s)));
	int report = hesper_print_report(stdout, events.data(), events.size());

	bool ok = hesper_event_duration_ns(&events[0]) == 2500 && hesper_event_duration_ns(&events[1]) == 26665 &&
		  s.total_events == 3 && n == 2 && first == "softmax" && text.compare(0, 10, "3 events: ") == 0 &&
		  report == HESPER_OK;
	std::printf("lib_consumer.cpp: %s\n", ok ? "ok" : "WRONG");
	return ok ? 0 : 1;
}
