%% DC lines added to case_ACTIVSg2000 by make_reference.m (test/reference/dcline-opf)
%	fbus	tbus	status	Pf	Pt	Qf	Qt	Vf	Vt	Pmin	Pmax	QminF	QmaxF	QminT	QmaxT	loss0	loss1
mpc.dcline = [
	4046	2132	1	0	0	0	0	1	1	0	200	-50	50	-50	50	2	0.02;
	8026	4094	1	0	0	0	0	1	1	-100	100	-30	30	-30	30	0	0.01;
	4094	2132	0	0	0	0	0	1	1	0	100	-10	10	-10	10	0	0;
];
