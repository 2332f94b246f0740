// Python bindings: exceptions become Python exceptions and end the command.
#include <pybind11/pybind11.h>

#include "remote_memory.h"

namespace py = pybind11;

PYBIND11_MODULE(_probe, m)
{
    py::class_<probe::RemoteMemory>(m, "RemoteMemory")
        .def(py::init<pid_t>())
        .def("read", &probe::RemoteMemory::read)
        .def("read_words", &probe::RemoteMemory::readWords);
}
