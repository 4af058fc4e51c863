module github.com/ghostcheck/ghostcheck

go 1.26.0

require (
	github.com/google/uuid v1.6.0
	go.uber.org/goleak v1.3.0
)

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/twmb/franz-go/pkg/kmsg v1.15.1
	pgregory.net/rapid v1.3.0
)
