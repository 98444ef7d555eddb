package policy

import "time"

const day = 24 * time.Hour

// RecallTimeout is the default recall.timeout.
const RecallTimeout = 250 * time.Millisecond

// Default returns the built-in policy. policy.yaml at the repository root
// mirrors it key for key (a test keeps them equal).
func Default() *Policy {
	return &Policy{
		Server: Server{
			MaxBodyBytes:       16 << 20,
			ConnectTimeout:     Duration(5 * time.Second),
			FirstByteTimeout:   Duration(10 * time.Minute),
			ShutdownTimeout:    Duration(30 * time.Second),
			SinkTimeout:        Duration(2 * time.Second),
			SinkAbandonTimeout: Duration(time.Minute),
			ReadHeaderTimeout:  Duration(10 * time.Second),
			IdleTimeout:        Duration(120 * time.Second),
			BodyMinRate:        16 << 10,
			BodyStallTimeout:   Duration(20 * time.Second),
			MaxInFlight:        4096,
			TrustedProxies:     []string{},
		},
		Identity: Identity{
			TrustHeaders:    true,
			UserHeaders:     []string{"X-OpenWebUI-User-Id", "X-LibreChat-User-Id", "X-User-Id"},
			SessionMessages: 2,
			Anonymous:       AnonymousNoMemory,
		},
		AB: AB{OffPercent: 0, Unit: "user", OffArmIngests: true},
		Gate: Gate{
			MinScore:       0.35,
			ForcedMinScore: 0.15,
			LocalMinScore:  0.2,
			Adaptive:       Adaptive{Enabled: true, StepUp: 0.01, StepDown: 0.02, Min: 0.2, Max: 0.6},
			MinChars:       3,
			Acknowledgements: []string{
				"ok", "okay", "k", "kk", "yes", "yeah", "yep", "sure", "thanks", "thank you", "thx", "ty",
				"got it", "cool", "nice", "great", "alright", "fine", "done", "sounds good", "perfect",
				"好的", "好", "嗯", "嗯嗯", "可以", "行", "收到", "谢谢", "多谢", "明白", "知道了", "对", "是的", "没问题",
				"ok thanks", "thanks a lot", "thank you so much", "thank you very much", "many thanks", "much appreciated",
				"appreciate it", "thank u", "okie", "okey", "roger", "noted", "understood", "i see", "makes sense", "yup",
				"awesome", "agreed", "exactly", "right", "good", "np", "no problem", "no worries", "you're welcome", "welcome",
				"wow", "oh", "ah", "ahh", "hmm", "mm", "uh", "um", "666",
				"好吧", "好嘞", "好滴", "好哒", "嗯哼", "哦", "噢", "懂了", "了解", "明白了", "收到了", "感谢", "谢了", "辛苦了",
				"太好了", "不错", "棒", "厉害", "牛", "赞", "妥", "对的", "是", "可以的", "没事", "ok了",
			},
			Negations: []string{
				"no", "nope", "nah", "not really", "不", "不行", "不要", "不用", "没有", "算了",
				"no thanks", "not now", "never mind", "nevermind", "no need", "not at all", "不是", "不对", "不需要", "没", "别", "不了",
			},
			Laughter: []string{"ha", "he", "hi", "lol", "lmao", "rofl", "xd", "哈", "嘿", "呵", "嘻", "233", "hh", "lmfao", "haha", "hehe", "笑死"},
			Greetings: []string{
				"hi", "hello", "hey", "hey there", "hi there", "good morning", "good afternoon", "good evening",
				"good night", "bye", "goodbye", "see you", "你好", "您好", "嗨", "早", "早上好", "晚上好", "晚安", "再见", "拜拜",
				"hiya", "howdy", "yo", "morning", "evening", "good day", "greetings", "hola", "sup", "what's up", "how are you",
				"how's it going", "see you later", "see ya", "later", "good bye", "bye bye", "cya", "ttyl",
				"哈喽", "哈罗", "早安", "午安", "下午好", "中午好", "在吗", "在不在", "大家好", "回见", "明天见",
			},
			CommandPrefixes: []string{"/", "!"},
			RecallCues: []string{
				"remember", "last time", "i told you", "as i said", "as i mentioned", "i mentioned",
				"you know my", "my ", "do you recall", "we talked about", "we discussed",
				"之前", "上次", "记得", "我说过", "我的", "以前", "还记得",
			},
		},
		Recall: Recall{
			TopK:                  5,
			Candidates:            50,
			RRFK:                  10,
			VectorWeight:          1,
			LocalVectorWeight:     0.1,
			LocalVectorCandidates: 20,
			PhraseWeight:          0.5,
			AnswerWeight:          0.5,
			HyponymWeight:         1,
			EntityFirst:           true,
			SnippetTokens:         40,
			LeadTokens:            40,
			Weights:               Weights{Similarity: 1, Recency: 0.05, Frequency: 0.05, Value: 0},
			ProfileBudgetTokens:   150,
			PreferConsolidated:    true,
			Timeout:               Duration(RecallTimeout),
		},
		Inject: Inject{
			BudgetTokens: 500,
			Placement:    "system",
			Guard: "Earlier notes, maybe stale or irrelevant: use one only if it clearly helps,\n" +
				"prefer what the user says now, never mention them.",
		},
		Explicit: Explicit{
			RememberCues: []string{
				"remember that", "remember this", "please remember", "from now on", "please note", "keep in mind", "don't forget", "记住", "请记住", "以后都", "从现在开始", "别忘了",
				"do not forget", "never forget", "make a note", "take a note", "note down", "memorize", "memorise", "save this", "going forward",
				"帮我记住", "记下来", "记一下", "别忘记", "不要忘记", "不要忘了", "从今以后", "今后都", "以后请",
			},
			ForgetCues: []string{
				"forget that", "forget about", "forget what i", "please forget", "stop remembering", "忘掉", "忘记", "别记", "不要记",
				"forget my", "forget everything", "forget the", "forget where i", "forget i", "delete my", "remove my", "erase", "delete what i", "remove what i",
				"忘了吧", "删掉", "删除", "不用记", "别再记",
				"don't remember anything", "do not remember anything", "don't remember my", "do not remember my", "don't remember that i",
				"don't store my", "do not store my", "don't save my", "don't keep track of", "stop storing", "no need to remember",
				"delete all my", "erase all my", "delete everything", "wipe my", "忘掉关于我的", "删除我的所有",
			},
			RememberNote: "memproxy is saving the user's note from this message to long-term memory; you may confirm that it will be remembered.",
			ForgetNote:   "memproxy is removing what the user asked to forget from long-term memory; you may confirm that it will be forgotten.",
			ProfileCues:  []string{"from now on", "always", "never", "i prefer", "call me", "my name is", "allergic", "vegetarian", "vegan", "以后都", "从现在开始", "永远", "总是", "叫我", "我叫", "过敏", "吃素", "素食"},
		},
		Ingest: Ingest{
			TurnLog:         true,
			Redact:          Redact{APIKey: true, Card: true},
			UsedThreshold:   0.3,
			Workers:         16,
			TimeZone:        "UTC",
			MaxTurnBytes:    32 << 10,
			MaxFactsPerTurn: 64,
			Yield:           IngestYield{Share: 0.1, BusyWindow: Duration(50 * time.Millisecond), MaxLag: Duration(30 * time.Second)},
		},
		Consolidation: Consolidation{
			APIKeyEnv:             "MEMPROXY_CONSOLIDATION_API_KEY",
			ClusterMin:            3,
			ClusterThreshold:      0.82,
			LocalClusterThreshold: 0.45,
			MaxCallsPerHour:       120,
			Retries:               2,
			Timeout:               Duration(60 * time.Second),
		},
		Reconcile: Reconcile{
			DupThreshold:            0.92,
			SupersedeThreshold:      0.75,
			LocalDupThreshold:       0.8,
			LocalSupersedeThreshold: 0.3,
			ChangeCues: []string{
				"switched", "switch to", "now", "no longer", "moved", "changed", "instead", "anymore", "any more",
				"these days", "not anymore", "started", "quit",
				"换成", "改成", "不再", "现在", "已经", "搬到", "改用", "换了",
			},
		},
		Decay: Decay{
			Interval: Duration(time.Hour),
			Shape:    1.5,
			HalfLife: HalfLife{
				Event:    Duration(30 * day),
				Episodic: Duration(60 * day),
				Semantic: Duration(365 * day),
				Profile:  0,
			},
			BoostPerHit:      0.2,
			MaxBoost:         3,
			LowValue:         0.3,
			ForgetBelow:      0.15,
			ArchiveRetention: Duration(90 * day),
			JobRetention:     Duration(time.Hour),
		},
		Sessions: Sessions{Idle: Duration(30 * time.Minute), MinTurns: 3},
		Embedder: Embedder{
			Provider:  "local",
			Model:     "text-embedding-3-small",
			APIKeyEnv: "MEMPROXY_EMBEDDER_API_KEY",
			Dim:       256,
			CacheSize: 10000,
		},
		Admin: Admin{RatePerSecond: 50, Burst: 100},
		Postgres: Postgres{
			MaxConns: 24, BackgroundMaxConns: 8, RiverMaxConns: 8,
			ConnectTimeout:   Duration(5 * time.Second),
			StatementTimeout: Duration(60 * time.Second),
			LockTimeout:      Duration(10 * time.Second),
		},
	}
}
